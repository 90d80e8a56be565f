import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex, DEFAULT_POLICY } from '../../matcher/index.js';
import { MATCHER_THREAD_NAME } from '../../matcher/thread-name.js';
import { ApiError } from '../../server/errors.js';
import { createLogger } from '../../server/log.js';
import { MatcherPool } from '../../server/screening/matcher-pool.js';
import { personEntity } from '../helpers/entities.js';

const entity = (id: string, name: string) => personEntity('test', id, name);

describe('MatcherPool', () => {
  const pool = new MatcherPool(1, 2, createLogger('silent'));
  afterAll(() => pool.close());

  it('refuses screens before any dataset version is loaded (503 matcher_unavailable)', async () => {
    await expect(
      pool.screen({ name: 'x' }, { datasets: ['sanctions'], policy: DEFAULT_POLICY }),
    ).rejects.toMatchObject({
      code: 'matcher_unavailable',
      status: 503,
    });
  });

  it('answers from the loaded version and sheds load beyond its queue bound with 503 overloaded', async () => {
    await pool.load(buildIndex([entity('1', 'Ivan Demovsky'), entity('2', 'Olga Testova')], 'v1'));
    const one = await pool.screen(
      { name: 'Ivan Demovsky' },
      { datasets: ['sanctions'], policy: DEFAULT_POLICY },
    );
    expect(one.dataset_version).toBe('v1');
    expect(one.matches[0]?.source_id).toBe('1');

    const burst = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        pool.screen({ name: 'Olga Testova' }, { datasets: ['sanctions'], policy: DEFAULT_POLICY }),
      ),
    );
    const refused = burst
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason as ApiError);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e instanceof ApiError && e.code === 'overloaded' && e.status === 503)).toBe(
      true,
    );
    expect(refused[0]?.headers).toEqual({ 'retry-after': '1' });
    expect(burst.some((r) => r.status === 'fulfilled')).toBe(true);
  });

  it('switches to a newly loaded version; screens then report the new version', async () => {
    await pool.load(buildIndex([entity('3', 'Petra Newlisted')], 'v2'));
    const r = await pool.screen(
      { name: 'Petra Newlisted' },
      { datasets: ['sanctions'], policy: DEFAULT_POLICY },
    );
    expect(r.dataset_version).toBe('v2');
    expect(r.matches.map((m) => m.source_id)).toEqual(['3']);
  });

  it('keeps serving the loaded version when a new index cannot be opened by its threads (load rejects)', async () => {
    const before = pool.version;
    // buffers missing: every thread fails while opening the index
    const broken = { version: 'broken', buffers: {}, meta: {} };
    await expect(pool.load(broken)).rejects.toThrow();
    expect(pool.version).toBe(before);
    const r = await pool.screen(
      { name: 'Petra Newlisted' },
      { datasets: ['sanctions'], policy: DEFAULT_POLICY },
    );
    expect(r.dataset_version).toBe(before);
  });

  it('screens arriving while the thread is busy go in micro-batches, each settling with its own result', async () => {
    const wide = new MatcherPool(1, 100, createLogger('silent'));
    try {
      await wide.load(buildIndex([entity('1', 'Ivan Demovsky'), entity('2', 'Olga Testova')], 'b1'));
      const names = Array.from({ length: 40 }, (_, i) => (i % 2 ? 'Ivan Demovsky' : 'Olga Testova'));
      // different options per screen (concurrent requests of different tenants): each keeps its own
      const opts = (i: number) => ({
        datasets: ['sanctions' as const],
        policy: DEFAULT_POLICY,
        limit: 1 + (i % 3),
        min_score: i % 5 === 0 ? 0.99999 : 0,
      });
      const alone = [];
      for (const [i, name] of names.entries()) alone.push(await wide.screen({ name }, opts(i)));
      const before = wide.tasksCompleted;
      const submittedBefore = wide.tasksSubmitted;
      const burst = await Promise.all(names.map((name, i) => wide.screen({ name }, opts(i))));
      const strip = (r: (typeof burst)[number]) => ({ ...r, screen_ms: undefined });
      expect(burst.map(strip)).toEqual(alone.map(strip));
      // fewer tasks than screens: the ones that arrived while the thread was busy shared tasks
      expect(wide.tasksCompleted - before).toBeLessThan(names.length);
      // every task counted once when submitted (matcher_tasks_total)
      expect(wide.tasksSubmitted - submittedBefore).toBe(wide.tasksCompleted - before);
      expect(burst.every((r) => r.dataset_version === 'b1')).toBe(true);
    } finally {
      await wide.close();
    }
  });

  it.runIf(existsSync('/proc/thread-self/comm'))(
    'names its threads (Linux), so that their CPU can be told from the other threads of the process',
    () => {
      const names = readdirSync('/proc/self/task').map((t) =>
        readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim(),
      );
      // this file's pool has one thread per loaded generation still open (current and previous)
      expect(names.filter((n) => n === MATCHER_THREAD_NAME).length).toBeGreaterThanOrEqual(1);
      expect(names.filter((n) => n === MATCHER_THREAD_NAME).length).toBeLessThan(names.length);
    },
  );

  it('keeps the replaced version warm for an instant rollback, and only that one', async () => {
    // state here: current v2, previous v1
    expect(pool.activate('v1')).toBe(true);
    const back = await pool.screen(
      { name: 'Ivan Demovsky' },
      { datasets: ['sanctions'], policy: DEFAULT_POLICY },
    );
    expect(back.dataset_version).toBe('v1');
    await pool.load(buildIndex([entity('4', 'Third Version')], 'v3'));
    expect(pool.version).toBe('v3');
    expect(pool.activate('v2')).toBe(false);
    expect(pool.activate('v1')).toBe(true);
    expect(pool.version).toBe('v1');
  });
});
