// Issue 16: a progress bar on stderr for long ingests and screens when stderr is a terminal, and none otherwise.
// A terminal comes from util-linux `script` (a pseudo-terminal on stdin/stderr); stdout goes to a file.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { dropDatabase } from '../helpers/test-app.js';

const DEMO = join(REPO_ROOT, 'ingest', 'fixtures', 'demo');
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('progress.test: util-linux `script` not found; the terminal cases are skipped');

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Runs bin/veriscreen with stderr (and stdin) on a pseudo-terminal, stdin from `inputFile`, stdout to a file;
 * returns what the terminal showed and what went to stdout. */
function onTerminal(
  args: string[],
  inputFile: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; terminal: string; stdout: string }> {
  const out = join(dir, `out-${randomBytes(4).toString('hex')}`);
  const cmd = `${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')} < ${q(inputFile)} > ${q(out)}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, cwd: REPO_ROOT });
    let terminal = '';
    child.stdout.on('data', (d: Buffer) => {
      terminal += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, terminal, stdout: readFileSync(out, 'utf8') }));
    child.stdin.end();
  });
}

let dir = '';
const subjects = Array.from({ length: 200 }, (_, i) =>
  JSON.stringify({ ref: `s${i}`, name: `Person ${i} Test` }),
);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vs-progress-'));
  writeFileSync(join(dir, 'subjects.jsonl'), `${subjects.join('\n')}\n`);
  writeFileSync(join(dir, 'empty'), '');
  // a synthetic list big enough to be read in several chunks (fictional names)
  const sdn = join(dir, 'synth');
  spawnSync('mkdir', ['-p', sdn]);
  const rows = Array.from(
    { length: 3000 },
    (_, i) =>
      `${800000 + i},"SYNTHETIC${i}, Person Number","individual","DEMO",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"FICTIONAL ENTRY ${i}; DOB 1970; nationality Utopia; Gender Male."`,
  );
  writeFileSync(join(sdn, 'synth-sdn.csv'), `${rows.join('\n')}\n`);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const BAR = (phase: string, pct = '\\d+') => new RegExp(`${phase} \\[[#.]{30}\\]\\s+${pct}%`);

describe('progress on stderr', () => {
  it.skipIf(!hasScript)(
    'screen draws a bar while it screens a file when stderr is a terminal; stdout stays clean',
    async () => {
      const r = await onTerminal(['screen', '--list', `ofac_sdn_csv:${DEMO}`], join(dir, 'subjects.jsonl'), {
        ...process.env,
        NODE_ENV: 'development',
      });
      expect(r.code).toBe(0);
      expect(r.terminal).toMatch(BAR('screening', '100'));
      expect(r.terminal).toMatch(/screening \[#{30}\]\s+100%\s+200 subjects/);
      expect(r.terminal).toMatch(/index: \d+ entities/);
      const out = r.stdout.trim().split('\n');
      expect(out).toHaveLength(200);
      for (const l of out) expect(l.startsWith('{')).toBe(true);
    },
  );

  it('screen writes no bar when stderr is not a terminal', async () => {
    const r = await runCli(['screen', '--list', `ofac_sdn_csv:${DEMO}`], {
      input: `${subjects.join('\n')}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toContain('screening');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^index: /)]);
  });

  describe('ingest against real services', () => {
    const db = `vs_progress_${randomBytes(4).toString('hex')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${db}`,
      NODE_ENV: 'development',
      MATCHER_THREADS: '1',
      LOG_LEVEL: 'warn',
      LOCAL_S3_PORT: '0',
    };
    beforeAll(async () => {
      env.LOCAL_S3_DIR = join(dir, 's3');
      expect((await runCli(['migrate'], { env })).code).toBe(0);
    });
    afterAll(async () => {
      await dropDatabase(db);
    });

    it.skipIf(!hasScript)(
      'draws a bar through reading (by bytes), indexing and storing when stderr is a terminal',
      async () => {
        const r = await onTerminal(
          ['ingest', '--format', 'ofac_sdn_csv', '--source', join(dir, 'synth'), '--name', 'synth'],
          join(dir, 'empty'),
          env,
        );
        expect(r.code).toBe(0);
        expect(r.terminal).toMatch(BAR('reading'));
        expect(r.terminal).toMatch(/reading \[[#.]{30}\]\s+\d+%\s+1,000 entities/);
        expect(r.terminal).toMatch(/indexing {2}3,000 entities/);
        expect(r.terminal).toMatch(/storing the index {2}3,000 entities/);
        expect(r.stdout).toMatch(/"synth" ready/);
        expect(r.stdout).toMatch(/entities: 3000/);
      },
    );

    it('draws nothing when stderr is not a terminal', async () => {
      const r = await runCli(['ingest', '--format', 'ofac_sdn_csv', '--source', DEMO, '--name', 'plain'], {
        env,
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/"plain" ready/);
    });

    it('a missing source is one clear line before anything starts', async () => {
      const r = await runCli(['ingest', '--format', 'ofac_sdn_csv', '--source', '/nonexistent/sdn'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('veriscreen: --source /nonexistent/sdn: no such file or directory\n');
    });
  });
});
