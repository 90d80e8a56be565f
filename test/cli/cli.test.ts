import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { AML_DATASETS, type Entity } from '../../ingest/entity.js';
import { readSource } from '../../ingest/index.js';
import { buildIndex, compare, DEFAULT_POLICY, openIndex } from '../../matcher/index.js';
import { DatasetSource } from '../../schemas/datasets.js';
import { startLocalS3 } from '../../server/storage/local-s3.js';
import { BIN, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { dropDatabase } from '../helpers/test-app.js';

const DEMO = join(REPO_ROOT, 'ingest', 'fixtures', 'demo');
const README = join(REPO_ROOT, 'README.md');
const run = promisify(execFile);

const withStdin = (args: string[], input: string, env: NodeJS.ProcessEnv = process.env) =>
  runCli(args, { input, env });

describe('bin/veriscreen screen (offline)', () => {
  it('screens JSON lines in input order, with errors on their own line', async () => {
    const input = [
      JSON.stringify({ ref: 'a', name: 'Ivan Demovsky', type: 'person' }),
      '{not json',
      JSON.stringify({ ref: 'b', name: 'Zephyrine Quorrelby-Atwater' }),
      JSON.stringify({ ref: 'c', nom: 'missing name' }),
      JSON.stringify({ ref: 'd', name: 'DEMOVSKY, Ivan Petrovich', date_of_birth: '1961-03-12' }),
    ].join('\n');
    const r = await withStdin(['screen', '--list', `ofac_sdn_csv:${DEMO}`, '--limit', '3'], input);
    expect(r.code).toBe(1); // two lines failed
    expect(r.stderr).toMatch(/2 of 5 subjects failed/);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out).toHaveLength(5);
    expect(out[0]).toMatchObject({
      ref: 'a',
      matches: [expect.objectContaining({ source_id: '900001', source: 'us_ofac_sdn' })],
    });
    expect(out[1]).toMatchObject({ ref: null, error: { code: 'json_invalid' } });
    expect(out[2]).toMatchObject({ ref: 'b', matches: [] });
    expect(out[3]).toMatchObject({ ref: 'c', error: { code: 'validation_failed' } });
    const d = out[4] as {
      matches: { score: number; entity_id: string; evidence: { matched_name: string } }[];
      took_ms: number;
    };
    expect(d.matches[0]?.entity_id).toBe('us_ofac_sdn:900001');
    expect(d.matches[0]?.score).toBeGreaterThan(0.95);
    expect(d.took_ms).toBeGreaterThanOrEqual(0);
    for (const line of out.filter((o) => 'matches' in o)) {
      const scores = (line.matches as { score: number }[]).map((m) => m.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      expect(scores.length).toBeLessThanOrEqual(3);
    }
    expect(r.stderr).toMatch(/index: \d+ entities/);
  });

  it('refuses a bad --list with a usage error', async () => {
    const r = await withStdin(['screen', '--list', 'nope:/tmp'], '');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--list must be <format>:<path>/);
  });
});

describe('bin/veriscreen compare (offline)', () => {
  it('scores pairs and flags matches at the review threshold', async () => {
    const input = [
      JSON.stringify({ schema: 'Person', a: 'Vladimir Putin', b: 'PUTIN, Vladimir Vladimirovich' }),
      JSON.stringify({ schema: 'Person', a: 'Vladimir Putin', b: 'Angela Merkel' }),
      JSON.stringify({ schema: 'Person', a: 'x' }),
    ].join('\n');
    const r = await withStdin(['compare'], input);
    expect(r.code).toBe(1); // the third line failed
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out[0]).toMatchObject({ match: true });
    expect(out[1]).toMatchObject({ match: false });
    expect((out[0]?.score as number) > (out[1]?.score as number)).toBe(true);
    expect(out[2]).toMatchObject({ error: { code: 'validation_failed' } });
  });
});

describe('bin/veriscreen screen/compare give the matcher results (issue 15)', () => {
  it('a misspelt company and a short-name typing slip score offline exactly as the service matcher scores them', async () => {
    const subjects = [
      { ref: 'a', name: 'FICTITIOUS HOLDINGS LIMIETD', type: 'company' as const },
      { ref: 'b', name: 'DEMO BANK OF EXAMPLESTAN JOTNT STOCK COMPANY' },
      { ref: 'c', name: 'DEMOVKSY Ivan Petrovich', type: 'person' as const },
    ];
    const r = await withStdin(
      ['screen', '--list', `ofac_sdn_csv:${DEMO}`, '--limit', '3'],
      subjects.map((s) => JSON.stringify(s)).join('\n'),
    );
    expect(r.code).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { matches: { entity_id: string; score: number }[] });
    // the service screens through matcher/index.ts (the Piscina worker opens the same index)
    const entities: Entity[] = [];
    for await (const e of readSource('ofac_sdn_csv', DEMO, () => {})) entities.push(e);
    const screener = openIndex(buildIndex(entities, 'demo'));
    const options = { datasets: [...AML_DATASETS], policy: DEFAULT_POLICY, limit: 3 };
    const ours = subjects.map((s) => screener.screen(s, options).matches.map((m) => [m.entity_id, m.score]));
    expect(out.map((o) => o.matches.map((m) => [m.entity_id, m.score]))).toEqual(ours);
    expect(ours.map((m) => m[0]?.[0])).toEqual([
      'us_ofac_sdn:900102',
      'us_ofac_sdn:900103',
      'us_ofac_sdn:900001',
    ]);

    const pairs = [
      { schema: 'Company', a: 'CARVANA COMPAYN', b: 'Carvana Company' },
      { schema: 'Company', a: 'SIONPA', b: 'SINOPA' },
      { schema: 'Company', a: 'SIONPA', b: 'SIERRA' },
    ];
    const c = await withStdin(['compare'], pairs.map((p) => JSON.stringify(p)).join('\n'));
    const scores = c.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { score: number }).score);
    expect(scores).toEqual(pairs.map((p) => compare(p.schema, p.a, p.b).score));
    expect(scores[0]).toBeGreaterThanOrEqual(DEFAULT_POLICY.review_threshold);
    expect(scores[1]).toBeGreaterThanOrEqual(DEFAULT_POLICY.review_threshold);
    expect(scores[2]).toBeLessThan(DEFAULT_POLICY.review_threshold);
  });
});

describe('bin/veriscreen ingest, migrate and serve against real services', () => {
  const db = `vs_cli_${randomBytes(4).toString('hex')}`;
  const env = {
    ...process.env,
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${db}`,
    NODE_ENV: 'development',
    PORT: '0',
    MATCHER_THREADS: '1',
    LOG_LEVEL: 'warn',
  };
  let server: ChildProcess | undefined;
  afterAll(async () => {
    server?.kill('SIGKILL');
    await dropDatabase(db);
  });

  it('migrate creates the database and is idempotent', async () => {
    const first = await run(process.execPath, [BIN, 'migrate'], { env });
    expect(first.stdout).toMatch(/applied: 001_init.sql/);
    const second = await run(process.execPath, [BIN, 'migrate'], { env });
    expect(second.stdout).toMatch(/up to date/);
  });

  it('ingest records a dataset version, prints counts and promotes it', async () => {
    const r = await run(
      process.execPath,
      [BIN, 'ingest', '--format', 'ofac_sdn_csv', '--source', DEMO, '--name', 'demo', '--promote'],
      {
        env,
      },
    );
    expect(r.stdout).toMatch(/ready and promoted/);
    expect(r.stdout).toMatch(/entities: \d+ \(.*Person \d+/);
    const sql = postgres(env.DATABASE_URL, { max: 1 });
    const rows = await sql`select name, status from dataset_versions`;
    const [row] = await sql<
      { sources: { format: string; uri: string }[] }[]
    >`select sources from dataset_versions`;
    await sql.end();
    expect(rows).toEqual([{ name: 'demo', status: 'active' }]);
    // issue 12 item 15: a file:// URI, which the API's own DatasetSource schema accepts (not a bare path)
    expect(row?.sources).toEqual([{ format: 'ofac_sdn_csv', uri: pathToFileURL(DEMO).toString() }]);
    expect(new RegExp(DatasetSource.properties.uri.pattern as string).test(row?.sources[0]?.uri ?? '')).toBe(
      true,
    );
  });

  it('ingest next to a running dev server reuses its embedded S3 instead of dying with EADDRINUSE', async () => {
    // what `npm start` holds in development: an s3rver on LOCAL_S3_PORT (here a free one, private to this test)
    const dir = join(tmpdir(), `vs-cli-s3-${randomBytes(4).toString('hex')}`);
    const s3 = await startLocalS3({ directory: dir, port: 0 });
    try {
      const port = new URL(s3.endpoint).port;
      const r = await run(
        process.execPath,
        [BIN, 'ingest', '--format', 'ofac_sdn_csv', '--source', DEMO, '--name', 'next-to-serve'],
        { env: { ...env, LOCAL_S3_PORT: port, LOCAL_S3_DIR: dir } },
      );
      expect(r.stdout).toMatch(/"next-to-serve" ready/);
    } finally {
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an unreachable dependency is one clear line naming it and how to start it, not a stack trace', async () => {
    const down = { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' };
    for (const cmd of ['migrate', 'serve']) {
      const r = await run(process.execPath, [BIN, cmd], { env: down }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/postgres is unreachable .* Start it: `docker compose up -d postgres`/);
    }
  });

  it('ingest with an unknown format fails with one clear line', async () => {
    await expect(
      run(process.execPath, [BIN, 'ingest', '--format', 'xml', '--source', DEMO], { env }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown --format "xml"/),
    });
  });

  it('serve prints the URL, admin token and demo keys on stderr, serves, and stops cleanly on SIGTERM', async () => {
    server = spawn(process.execPath, [BIN, 'serve'], { env: { ...env, LOG_LEVEL: 'info' }, cwd: REPO_ROOT });
    // issue 16: the development banner goes to stderr, stdout stays JSON log lines (jq never stops on it)
    let out = '';
    let stdout = '';
    server.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    server.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
      server?.stderr?.on('data', () => {
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
        if (m?.[1] && /publishable key: pk_/.test(out)) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    expect(out).toMatch(/admin token .*: adm_/);
    const secret = /secret key:\s+(tnk_\S+)/.exec(out)?.[1];
    expect(secret).toBeTruthy();
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    const flow = await fetch(`${url}/v1/flows`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mode: 'sync',
        applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' },
      }),
    });
    expect(flow.status).toBe(201);
    expect(((await flow.json()) as { status: string }).status).toBe('NEEDS_REVIEW');
    // the printed demo operators can sign in to the dashboard
    const tenantId = /dashboard: \S+\?tenant=([0-9a-f-]{36})/.exec(out)?.[1];
    const admin = /admin\s+(\S+@demo\.veriscreen\.test)\s+password: (\S+)/.exec(out);
    expect(tenantId && admin).toBeTruthy();
    const login = await fetch(`${url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ tenant_id: tenantId, email: admin?.[1], password: admin?.[2] }),
    });
    expect(login.status).toBeLessThan(300);
    expect(login.headers.get('set-cookie')).toMatch(/vs_session=.*HttpOnly/i);
    const exit = new Promise<number | null>((resolve) => server?.on('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exit).toBe(0);
    server = undefined;
    const logLines = stdout.trim().split('\n');
    for (const l of logLines) expect(() => JSON.parse(l), l).not.toThrow();
    const msgs = logLines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toContain(`listening on ${url}`);
    expect(stdout).not.toContain(secret);
    // issue 32 item 14: what the README says of these lines is what they are (it said "the first is `listening
    // on`"; the start-up steps come first, and it ends them)
    const claim =
      /`npm start` writes JSON log lines on stdout([^;]*);/.exec(readFileSync(README, 'utf8'))?.[1] ?? '';
    expect(claim).toContain('listening on <url>');
    const at = msgs.indexOf(`listening on ${url}`);
    if (/first is `listening on/.test(claim)) expect(at, `stdout starts with: ${msgs.slice(0, 3)}`).toBe(0);
    expect(msgs.slice(0, at)).not.toContain('request');
  });
});
