import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, deserializeIndex, INDEX_FORMAT, serializeIndex } from '../../matcher/index.js';
import { STATE_KEYS } from '../../server/bus/state-kv.js';
import { artifactKey, createVersion } from '../../server/datasets/dataset-store.js';
import {
  buildVersion,
  commitPromotion,
  ingestVersion,
  loadDemoDataset,
} from '../../server/datasets/lifecycle.js';
import { startLocalS3 } from '../../server/storage/local-s3.js';
import {
  call,
  createTenant,
  DEMO_SOURCE,
  startTestApp,
  type Tenant,
  type TestApp,
} from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

interface Version {
  id: string;
  status: string;
  error: string | null;
  sources: { format: string; uri: string }[];
}

const served = async (t: TestApp) =>
  (await call<{ dataset_version?: string }>(t.url, 'GET', '/readyz')).body.dataset_version;

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The demo list plus one newly listed person (a copy in a temporary folder). */
async function demoPlusNewcomer(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vs-lifecycle-'));
  dirs.push(dir);
  for (const f of ['sdn.csv', 'alt.csv', 'add.csv', 'sdn_comments.csv']) {
    let text = (await readFile(join(DEMO_SOURCE.uri, `demo-${f}`), 'latin1')).replace(
      new RegExp(`${String.fromCharCode(0x1a)}$`),
      '',
    );
    if (f === 'sdn.csv')
      text +=
        '999777,"NEWLYLISTED, Quentin Archibald","individual","DEMO",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"FICTIONAL DEMO ENTRY; DOB 1971."\r\n';
    await writeFile(join(dir, f), `${text}\x1a`, 'latin1');
  }
  return pathToFileURL(dir).toString();
}

describe('dataset lifecycle: reliable announcement, one promotion path', () => {
  let t: TestApp;
  let second: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp();
    second = await startTestApp({ join: t });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it('a lost announcement heals by itself: both processes serve the new version and monitors get the delta', async () => {
    const monitor = await call<{ id: string }>(t.url, 'POST', '/v1/monitors', {
      token: tenant.secret_key,
      body: { subjects: [{ name: 'Quentin Newlylisted', type: 'person' }], datasets: ['sanctions'] },
    });
    expect(monitor.status).toBe(201);
    const before = await served(t);
    const created = await createVersion(t.app.sql, {
      name: 'with newcomer',
      sources: [{ format: 'ofac_sdn_csv', uri: await demoPlusNewcomer() }],
    });
    expect((await buildVersion(t.app, created.id)).status).toBe('ready');

    // the promotion commits and the process dies before announcing: no KV put, no monitor-delta job
    const p = await commitPromotion(t.app.sql, created.id);
    expect(p.previous_id).toBe(before);
    expect((await t.app.kv.get(STATE_KEYS.active_dataset))?.string()).toBe(before);

    await waitFor(
      'both processes on the new version',
      async () => (await served(t)) === created.id && (await served(second)) === created.id,
      5000,
    );
    await waitFor(
      'the owed monitor delta',
      async () =>
        (
          await call<{ last_dataset_partition: string | null }>(
            t.url,
            'GET',
            `/v1/monitors/${monitor.body.id}`,
            {
              token: tenant.secret_key,
            },
          )
        ).body.last_dataset_partition === created.id,
      10_000,
    );
    const alerts = await t.app.sql<{ source_entity_id: string }[]>`
      select source_entity_id from alerts where subject_ref = ${`monitor:${monitor.body.id}`}`;
    expect(alerts.map((a) => a.source_entity_id)).toContain('us_ofac_sdn:999777');
    const [row] = await t.app.sql<{ delta_queued_at: Date | null }[]>`
      select delta_queued_at from dataset_promotions where id = ${p.promotion_id}`;
    expect(row?.delta_queued_at).toBeInstanceOf(Date);
  });

  it('a build job lost between the commit and the publish is queued by the reconciler', async () => {
    // what POST /admin/dataset_versions commits before it publishes; the process dies before the publish
    const v = await createVersion(t.app.sql, {
      name: 'owed build',
      sources: [DEMO_SOURCE],
      build_job_owed: true,
    });
    const built = await waitFor(
      'the owed build',
      async () => {
        const g = await call<Version>(t.url, 'GET', `/admin/dataset_versions/${v.id}`, {
          admin: t.adminToken,
        });
        return g.body.status === 'building' ? undefined : g.body;
      },
      15_000,
    );
    expect(built.status).toBe('ready');
  });

  it('ingestVersion({promote: true}) takes the same path: announced on the KV, delta queued at once', async () => {
    const res = await ingestVersion(t.app, {
      name: 'ingest --promote',
      sources: [DEMO_SOURCE],
      promote: true,
    });
    expect(res.version.status).toBe('active');
    expect((await t.app.kv.get(STATE_KEYS.active_dataset))?.string()).toBe(res.version.id);
    const [row] = await t.app.sql<{ delta_queued_at: Date | null }[]>`
      select delta_queued_at from dataset_promotions where to_version = ${res.version.id}`;
    expect(row?.delta_queued_at).toBeInstanceOf(Date);
    await waitFor(
      'both processes on the ingested version',
      async () => (await served(t)) === res.version.id && (await served(second)) === res.version.id,
      5000,
    );
  });

  it('matcher series drop the label values of retired versions (/metrics)', async () => {
    const screen = () =>
      call(t.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
      });
    const old = (await served(t)) as string;
    expect((await screen()).status).toBe(201);
    const metrics = async () => (await call<string>(t.url, 'GET', '/metrics')).body;
    expect(await metrics()).toContain(`matcher_screens_total{version="${old}"}`);
    const next = await ingestVersion(t.app, { name: 'next', sources: [DEMO_SOURCE], promote: true });
    await waitFor('new version served', async () => (await served(t)) === next.version.id, 5000);
    expect((await screen()).status).toBe(201);
    const text = await metrics();
    expect(text).toContain(`matcher_screens_total{version="${next.version.id}"}`);
    expect(text).not.toContain(old);
  });

  it('a missing source fails the version at once (permanent), naming the source', async () => {
    const r = await call<Version>(t.url, 'POST', '/admin/dataset_versions', {
      admin: t.adminToken,
      body: { sources: [{ format: 'ofac_sdn_csv', uri: 'file:///nonexistent/veriscreen/list' }] },
    });
    const v = await waitFor('failed', async () => {
      const g = await call<Version>(t.url, 'GET', `/admin/dataset_versions/${r.body.id}`, {
        admin: t.adminToken,
      });
      return g.body.status === 'building' ? undefined : g.body;
    });
    expect(v.status).toBe('failed');
    expect(v.error).toMatch(/nonexistent\/veriscreen\/list/);
    expect(v.error).not.toMatch(/attempt|gave up/);
  });

  it('an index artifact of another format is rebuilt from stored entities, never searched', async () => {
    const active = (await served(t)) as string;
    // what older code would have left: an artifact that claims another format (and holds nothing)
    const stale = buildIndex([], active);
    stale.meta.format = INDEX_FORMAT - 1;
    await t.app.store.put(artifactKey(active), serializeIndex(stale));
    const third = await startTestApp({ join: t });
    try {
      expect(await served(third)).toBe(active);
      const flow = await call<{ status: string }>(third.url, 'POST', '/v1/flows', {
        token: tenant.secret_key,
        body: { mode: 'sync', applicant: { legal_name_first: 'Ivan', legal_name_last: 'Demovsky' } },
      });
      expect(flow.body.status).toBe('NEEDS_REVIEW');
      const rewritten = deserializeIndex((await t.app.store.get(artifactKey(active))) as Buffer);
      expect(rewritten.meta.format).toBe(INDEX_FORMAT);
      expect(Number(rewritten.meta.entities)).toBeGreaterThan(10);
    } finally {
      await third.close();
    }
  });
});

describe('source URIs of versions made outside the API (issue 12 item 15)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sources: null });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the demo loader and in-process ingests store file:// URIs that pass the OpenAPI schema', async () => {
    // the server's own OpenAPI answer schema for GET /admin/dataset_versions/{version_id}
    const doc = (await SwaggerParser.dereference(
      (
        await call<object>(t.url, 'GET', '/openapi.json')
      ).body as never,
    )) as unknown as {
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    const schema = doc.paths['/admin/dataset_versions/{version_id}']?.get.responses['200']?.content[
      'application/json'
    ]?.schema as object;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv2020) => Ajv2020)(ajv);
    const validate = ajv.compile(schema);
    const demo = await loadDemoDataset(t.app);
    expect(demo?.status).toBe('active');
    const ingested = await ingestVersion(t.app, { name: 'bare path', sources: [DEMO_SOURCE] });
    for (const id of [demo?.id, ingested.version.id]) {
      const r = await call<Version>(t.url, 'GET', `/admin/dataset_versions/${id}`, { admin: t.adminToken });
      expect(r.status).toBe(200);
      expect(r.body.sources[0]?.uri).toMatch(/^file:\/\/\//);
      validate(r.body);
      expect(validate.errors ?? []).toEqual([]);
    }
    // a second start finds an active version and loads nothing
    expect(await loadDemoDataset(t.app)).toBeUndefined();
  });
});

/** A free TCP port (for an S3 server that the test stops and starts again on the same address). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

describe('dataset build worker: transient failures retry, then succeed', () => {
  let t: TestApp;
  let s3Dir: string;
  let port: number;
  let s3: { close(): Promise<void> } | undefined;
  beforeAll(async () => {
    s3Dir = await mkdtemp(join(tmpdir(), 'vs-lifecycle-s3-'));
    dirs.push(s3Dir);
    port = await freePort();
    s3 = await startLocalS3({ directory: s3Dir, port });
    t = await startTestApp({
      env: {
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        DATASET_BUILD_BACKOFF_MS: Array(30).fill('500').join(','),
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('an S3 outage during a build leaves the version building with the attempt noted; it is ready once S3 is back', async () => {
    await s3?.close();
    s3 = undefined;
    const r = await call<Version>(t.url, 'POST', '/admin/dataset_versions', {
      admin: t.adminToken,
      body: { sources: [{ format: 'ofac_sdn_csv', uri: pathToFileURL(DEMO_SOURCE.uri).toString() }] },
    });
    expect(r.status).toBe(201);
    const get = async () =>
      (await call<Version>(t.url, 'GET', `/admin/dataset_versions/${r.body.id}`, { admin: t.adminToken }))
        .body;
    const waiting = await waitFor('a failed attempt', async () => {
      const v = await get();
      return v.error ? v : undefined;
    });
    expect(waiting.status).toBe('building');
    expect(waiting.error).toMatch(/attempt 1 of \d+ failed \(will retry\)/);
    s3 = await startLocalS3({ directory: s3Dir, port });
    const ready = await waitFor('ready after S3 returns', async () => {
      const v = await get();
      return v.status === 'building' ? undefined : v;
    });
    expect(ready.status).toBe('ready');
    expect(ready.error).toBeNull();
  });
});
