import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueFeeds } from '../../server/datasets/feeds.js';
import { freePort } from '../helpers/private-services.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

interface Feed {
  id: string;
  etag: string | null;
  last_status: string | null;
  last_error: string | null;
  last_version_id: string | null;
  last_checked_at: string | null;
}

/** A Senzing JSON-lines list of `n` fictional sanctioned people (plus one named person when `quentin`). */
function list(n: number, quentin = true, prefix = 'F'): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        DATA_SOURCE: 'TEST_FEED',
        RECORD_ID: `${prefix}-${i}`,
        RECORD_TYPE: 'PERSON',
        NAMES: [
          { NAME_TYPE: 'PRIMARY', NAME_FULL: `Feedperson${String.fromCharCode(65 + (i % 26))} Number${i}` },
        ],
        RISKS: [{ TOPIC: 'sanction' }],
      }),
    );
  }
  if (quentin) {
    lines.push(
      JSON.stringify({
        DATA_SOURCE: 'TEST_FEED',
        RECORD_ID: 'F-Q',
        RECORD_TYPE: 'PERSON',
        NAMES: [{ NAME_TYPE: 'PRIMARY', NAME_FULL: 'Quentin Feedlisted' }],
        RISKS: [{ TOPIC: 'sanction' }],
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('list feeds over HTTPS (a local server with a certificate made by the test)', () => {
  let dir: string;
  let server: Server;
  let base: string;
  let t: TestApp;
  let tenant: Tenant;
  // what the list server serves now, and what it saw
  let body = list(40);
  const seen: { ifNoneMatch: string | undefined; status: number }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vs-feed-'));
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    server = createServer(
      { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) },
      (req, res) => {
        const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
        const inm = req.headers['if-none-match'];
        const status = inm === etag ? 304 : 200;
        seen.push({ ifNoneMatch: inm, status });
        res.writeHead(status, { etag, 'content-type': 'application/x-ndjson' });
        res.end(status === 200 ? body : undefined);
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ env: { FEED_EXTRA_CA_FILE: join(dir, 'cert.pem'), FEED_SCHEDULER_MS: '200' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const getFeed = async (id: string) =>
    (await call<Feed>(t.url, 'GET', `/admin/dataset_feeds/${id}`, { admin: t.adminToken })).body;
  /** Makes the feed due and waits for the run that follows (last_checked_at moves). */
  const runOnce = async (id: string): Promise<Feed> => {
    const before = (await getFeed(id)).last_checked_at;
    expect(
      (await call(t.url, 'POST', `/admin/dataset_feeds/${id}/run`, { admin: t.adminToken })).status,
    ).toBe(202);
    return waitFor('feed run', async () => {
      const f = await getFeed(id);
      return f.last_checked_at !== before ? f : undefined;
    });
  };
  const served = async () =>
    (await call<{ dataset_version?: string }>(t.url, 'GET', '/readyz')).body.dataset_version;

  it('validates feeds: known format, https only for single-file formats, admin token', async () => {
    expect((await call(t.url, 'GET', '/admin/dataset_feeds')).status).toBe(401);
    const unknown = await call(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: { format: 'pdf', uri: `${base}/x` },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'format'] })]);
    const folder = await call(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: { format: 'ofac_sdn_csv', uri: `${base}/sdn.csv` },
    });
    expect(folder.status).toBe(422);
    expect(folder.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'uri'] })]);
    const scheme = await call(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: { format: 'senzing_json', uri: 'ftp://x/y' },
    });
    expect(scheme.status).toBe(422);
  });

  it('fetches, builds, promotes (auto) and monitors rescreen; a 304 builds nothing; a shrunken or corrupt list is refused', async () => {
    const monitor = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: tenant.secret_key,
      body: { subjects: [{ name: 'Quentin Feedlisted', type: 'person' }], datasets: ['sanctions'] },
    });
    expect(monitor.status).toBe(201);
    const demo = await served();
    const created = await call<Feed>(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: {
        name: 'test list',
        format: 'senzing_json',
        uri: `${base}/list.json`,
        interval_minutes: 60,
        promote: 'auto',
        max_shrink_fraction: 0.5,
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;

    // a new feed is due at once: the scheduler claims it, the list is fetched, built, validated and promoted
    const first = await waitFor('first run', async () => {
      const f = await getFeed(id);
      return f.last_status ? f : undefined;
    });
    expect(first).toMatchObject({ last_status: 'promoted', last_error: null, etag: expect.any(String) });
    const v1 = first.last_version_id as string;
    await waitFor('the feed version served', async () => (await served()) === v1, 5000);
    const version = await call<{ sources: { format: string; uri: string }[] }>(
      t.url,
      'GET',
      `/admin/dataset_versions/${v1}`,
      { admin: t.adminToken },
    );
    // the active lists stay; the feed's snapshot (in S3) joins them
    expect(version.body.sources.map((s) => s.format)).toEqual(['ofac_sdn_csv', 'senzing_json']);
    expect(version.body.sources[1]?.uri).toMatch(/^s3:\/\/.+\/feeds\//);
    expect(demo).not.toBe(v1);
    await waitFor('monitor alert from the promotion delta', async () => {
      const rows = await t.app.sql`
        select 1 from alerts where subject_ref = ${`monitor:${monitor.body.id}`} and source_entity_id like '%F-Q%'`;
      return rows.length > 0;
    });

    // unchanged: the server answers 304 to the ETag, and no version is built
    const versionsBefore = (await t.app.sql`select count(*)::int as n from dataset_versions`)[0]?.n;
    const unchanged = await runOnce(id);
    expect(unchanged.last_status).toBe('unchanged');
    expect(seen[seen.length - 1]).toEqual({ ifNoneMatch: first.etag, status: 304 });
    expect((await t.app.sql`select count(*)::int as n from dataset_versions`)[0]?.n).toBe(versionsBefore);

    // a list that lost more than half its entries is refused and not promoted
    body = list(10, false);
    const shrunk = await runOnce(id);
    expect(shrunk.last_status).toBe('refused');
    expect(shrunk.last_error).toMatch(/shrank from 41 to 10 entities/);
    expect(await served()).toBe(v1);

    // a list that does not parse fails with the file and line
    body = '{"DATA_SOURCE": broken\nnot json either\n';
    const corrupt = await runOnce(id);
    expect(corrupt.last_status).toBe('failed');
    expect(corrupt.last_error).toMatch(/list\.json:1/);
    expect(await served()).toBe(v1);

    // a changed, healthy list is promoted again
    body = list(45);
    const grown = await runOnce(id);
    expect(grown.last_status).toBe('promoted');
    expect(grown.last_version_id).not.toBe(v1);
    await waitFor('the grown list served', async () => (await served()) === grown.last_version_id, 5000);
  });

  it('a due feed is claimed once, however many processes look at the same time', async () => {
    const created = await call<Feed>(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: { format: 'senzing_json', uri: `${base}/claimed.json`, enabled: false, interval_minutes: 60 },
    });
    await t.app.sql`update dataset_feeds set enabled = true where id = ${created.body.id}`;
    const claims = await Promise.all([1, 2, 3, 4].map(() => claimDueFeeds(t.app)));
    // the app's own scheduler may win the race; never more than one claim in all
    expect(claims.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
    const [row] = await t.app.sql<{ minutes: number }[]>`
      select round(extract(epoch from next_due_at - now()) / 60)::int as minutes from dataset_feeds
      where id = ${created.body.id}`;
    expect(row?.minutes).toBe(60);
    await call(t.url, 'DELETE', `/admin/dataset_feeds/${created.body.id}`, { admin: t.adminToken });
  });

  it('a manual feed leaves its version ready for an admin', async () => {
    body = list(5, false, 'M');
    const active = await served();
    const created = await call<Feed>(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: { format: 'senzing_json', uri: `${base}/other.json`, promote: 'manual' },
    });
    const f = await waitFor('manual run', async () => {
      const g = await getFeed(created.body.id);
      return g.last_status ? g : undefined;
    });
    expect(f.last_status).toBe('ready');
    const v = await call<{ status: string }>(t.url, 'GET', `/admin/dataset_versions/${f.last_version_id}`, {
      admin: t.adminToken,
    });
    expect(v.body.status).toBe('ready');
    expect(await served()).toBe(active);
    const del = await call(t.url, 'DELETE', `/admin/dataset_feeds/${created.body.id}`, {
      admin: t.adminToken,
    });
    expect(del.status).toBe(204);
  });

  // issue 32 item 14: offline, a feed's run is retried for minutes (5 s, 30 s, 2 min apart, each with its own
  // timeout) and said nothing meanwhile; each failed attempt now says so in last_error at once
  it('a feed that cannot be fetched says so after its first attempt, and that it will retry', async () => {
    const closed = await freePort();
    const created = await call<Feed>(t.url, 'POST', '/admin/dataset_feeds', {
      admin: t.adminToken,
      body: { format: 'senzing_json', uri: `https://127.0.0.1:${closed}/offline.json`, promote: 'manual' },
    });
    expect(created.status).toBe(201);
    const f = await waitFor('the first failed attempt to be recorded', async () => {
      const g = await getFeed(created.body.id);
      return g.last_error ? g : undefined;
    });
    expect(f.last_error).toMatch(/^attempt 1 of 4 failed \(will retry\): .*ECONNREFUSED/);
    await call(t.url, 'DELETE', `/admin/dataset_feeds/${created.body.id}`, { admin: t.adminToken });
  });
});
