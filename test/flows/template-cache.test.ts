import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sql } from '../../server/db/sql.js';
import { invalidateTemplateCache, templateAndPolicy } from '../../server/templates/template-store.js';

/** A pool that answers the template + policy read after `delayMs`, counting the reads. */
function fakePool(delayMs = 5) {
  let reads = 0;
  let name = 'v1';
  const sql = (() => {
    reads++;
    const row = { id: 'tpl', slug: 'default', name, archived_at: null, p_version: null, p_policy: null };
    return new Promise((resolve) => setTimeout(() => resolve([row]), delayMs));
  }) as unknown as Sql;
  return {
    sql,
    reads: () => reads,
    rename: (n: string) => {
      name = n;
    },
  };
}

let tenant = 0;
const newTenant = () => `tenant-${++tenant}`;

afterEach(() => {
  vi.useRealTimers();
});

describe('templateAndPolicy (the template and policy every flow reads, cached one second per process)', () => {
  it('reads once for concurrent requests that find no fresh entry', async () => {
    const pool = fakePool();
    const t = newTenant();
    const got = await Promise.all(
      Array.from({ length: 10 }, () => templateAndPolicy(pool.sql, t, 'default')),
    );
    expect(pool.reads()).toBe(1);
    expect(new Set(got.map((g) => g.template.name))).toEqual(new Set(['v1']));
  });

  it('past half its second, serves the entry and renews it in the background: no request waits for the read', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const pool = fakePool();
    const t = newTenant();
    await templateAndPolicy(pool.sql, t, 'default');
    pool.rename('v2');
    vi.setSystemTime(Date.now() + 600);
    // served from the entry (v1) at once, one read started
    expect((await templateAndPolicy(pool.sql, t, 'default')).template.name).toBe('v1');
    expect((await templateAndPolicy(pool.sql, t, 'default')).template.name).toBe('v1');
    expect(pool.reads()).toBe(2);
    await new Promise((r) => setTimeout(r, 20));
    expect((await templateAndPolicy(pool.sql, t, 'default')).template.name).toBe('v2');
    expect(pool.reads()).toBe(2);
  });

  it('never serves an entry a second old, and an invalidation is not undone by a read already in flight', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const pool = fakePool();
    const t = newTenant();
    await templateAndPolicy(pool.sql, t, 'default');
    pool.rename('v2');
    vi.setSystemTime(Date.now() + 1000);
    expect((await templateAndPolicy(pool.sql, t, 'default')).template.name).toBe('v2');
    // a renewal in flight when this process changes the template must not store what it read before the change
    vi.setSystemTime(Date.now() + 600);
    await templateAndPolicy(pool.sql, t, 'default'); // starts a renewal (reads v2)
    pool.rename('v3');
    invalidateTemplateCache(t);
    expect((await templateAndPolicy(pool.sql, t, 'default')).template.name).toBe('v3');
    await new Promise((r) => setTimeout(r, 20));
    expect((await templateAndPolicy(pool.sql, t, 'default')).template.name).toBe('v3');
  });
});
