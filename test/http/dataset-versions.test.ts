import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';
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
  name: string;
  status: string;
  error: string | null;
  stats: { entities?: number; by_schema?: Record<string, number>; checksum?: string; build_ms?: number };
  promoted_at: string | null;
  retired_at: string | null;
}

const fileUri = (p: string) => pathToFileURL(p).toString();

async function createVersion(t: TestApp, body: unknown): Promise<Version> {
  const r = await call<Version>(t.url, 'POST', '/admin/dataset_versions', { admin: t.adminToken, body });
  expect(r.status).toBe(201);
  expect(r.body.status).toBe('building');
  return r.body;
}

async function settled(t: TestApp, id: string): Promise<Version> {
  return waitFor(`version ${id} to build`, async () => {
    const r = await call<Version>(t.url, 'GET', `/admin/dataset_versions/${id}`, { admin: t.adminToken });
    return r.body.status === 'building' ? undefined : r.body;
  });
}

async function servedVersion(t: TestApp): Promise<string | undefined> {
  const r = await call<{ dataset_version?: string }>(t.url, 'GET', '/readyz');
  return r.body.dataset_version;
}

describe('dataset versions (admin API, worker builds through JetStream, artifacts in S3)', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp({ sources: [DEMO_SOURCE] });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('requires the admin token', async () => {
    const r = await call(t.url, 'GET', '/admin/dataset_versions');
    expect(r.status).toBe(401);
  });

  it('rejects an unknown format and a bad URI scheme with the field named', async () => {
    const r = await call(t.url, 'POST', '/admin/dataset_versions', {
      admin: t.adminToken,
      body: {
        sources: [
          { format: 'ofac_sdn_csv', uri: 'file:///x' },
          { format: 'pdf', uri: 'file:///y' },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'sources', 1, 'format'] })]);
    const scheme = await call(t.url, 'POST', '/admin/dataset_versions', {
      admin: t.adminToken,
      body: { sources: [{ format: 'ofac_sdn_csv', uri: 'ftp://x' }] },
    });
    expect(scheme.status).toBe(422);
    expect(scheme.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'sources', 0, 'uri'] })]);
  });

  it('builds a version from an s3:// prefix, lists it newest first beside the active one', async () => {
    const files = await readdir(DEMO_SOURCE.uri);
    for (const f of files.filter((f) => f.endsWith('.csv'))) {
      await t.app.store.put(`sources/demo-copy/${f}`, await readFile(join(DEMO_SOURCE.uri, f)));
    }
    const v = await createVersion(t, {
      name: 'demo from s3',
      sources: [{ format: 'ofac_sdn_csv', uri: `s3://${t.app.store.bucket}/sources/demo-copy/` }],
    });
    const built = await settled(t, v.id);
    expect(built.status).toBe('ready');
    expect(built.stats.entities).toBeGreaterThan(10);
    expect(built.stats.checksum).toMatch(/^[0-9a-f]{64}$/);
    const list = await call<{ items: Version[]; active: Version | null }>(
      t.url,
      'GET',
      '/admin/dataset_versions',
      {
        admin: t.adminToken,
      },
    );
    expect(list.body.items[0]?.id).toBe(v.id);
    expect(list.body.active?.status).toBe('active');
    expect(list.body.active?.id).not.toBe(v.id);
  });

  it('marks a corrupt source failed with the file and line, and keeps serving the active version', async () => {
    const before = await servedVersion(t);
    const dir = await mkdtemp(join(tmpdir(), 'vs-corrupt-'));
    try {
      await writeFile(join(dir, 'sdn.csv'), 'this is not\x00an OFAC file\n"unterminated,quote\n1,2\n');
      const v = await createVersion(t, { sources: [{ format: 'ofac_sdn_csv', uri: fileUri(dir) }] });
      const failed = await settled(t, v.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/unusable/);
      expect(failed.error).toMatch(/sdn\.csv:\d+/);
      expect(await servedVersion(t)).toBe(before);
      const promote = await call(t.url, 'POST', `/admin/dataset_versions/${v.id}/promote`, {
        admin: t.adminToken,
      });
      expect(promote.status).toBe(422);
      expect(promote.body.detail).toEqual([
        expect.objectContaining({ loc: ['path', 'version_id'], type: 'version_not_ready' }),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers 404 for promoting an unknown version', async () => {
    const r = await call(
      t.url,
      'POST',
      '/admin/dataset_versions/00000000-0000-4000-8000-000000000000/promote',
      {
        admin: t.adminToken,
      },
    );
    expect(r.status).toBe(404);
  });

  describe.skipIf(!HAS_SHARED_DATA)('promotion and rollback between the 2021 and 2024 OFAC SDN files', () => {
    let v2021: Version;
    let v2024: Version;
    const putin = async (app: TestApp) =>
      (
        await call<{ status: string; checks: { dataset_versions: string[] }[] }>(
          app.url,
          'POST',
          '/v1/flows',
          {
            token: tenant.secret_key,
            body: { mode: 'sync', applicant: { legal_name_first: 'Vladimir', legal_name_last: 'Putin' } },
          },
        )
      ).body;

    beforeAll(async () => {
      v2021 = await createVersion(t, {
        name: 'SDN 2021',
        sources: [{ format: 'ofac_sdn_csv', uri: fileUri(sharedPath('ofac_sdn_2021')) }],
      });
      v2024 = await createVersion(t, {
        name: 'SDN 2024',
        sources: [{ format: 'ofac_sdn_csv', uri: fileUri(sharedPath('ofac_sdn')) }],
      });
      expect((await settled(t, v2021.id)).status).toBe('ready');
      expect((await settled(t, v2024.id)).status).toBe('ready');
    });

    it('swaps the running process to each promoted version; checks record the version they ran against', async () => {
      const p2021 = await call<Version>(t.url, 'POST', `/admin/dataset_versions/${v2021.id}/promote`, {
        admin: t.adminToken,
      });
      expect(p2021.status).toBe(200);
      expect(p2021.body.status).toBe('active');
      await waitFor('2021 to be served', async () =>
        (await servedVersion(t)) === v2021.id ? true : undefined,
      );
      const before = await putin(t);
      expect(before.status).toBe('APPROVED');
      expect(before.checks[0]?.dataset_versions).toEqual([v2021.id]);

      const p2024 = await call<Version>(t.url, 'POST', `/admin/dataset_versions/${v2024.id}/promote`, {
        admin: t.adminToken,
      });
      expect(p2024.status).toBe(200);
      await waitFor('2024 to be served', async () =>
        (await servedVersion(t)) === v2024.id ? true : undefined,
      );
      const after = await putin(t);
      expect(after.status).toBe('NEEDS_REVIEW');
      expect(after.checks[0]?.dataset_versions).toEqual([v2024.id]);

      const list = await call<{ items: Version[]; active: Version }>(
        t.url,
        'GET',
        '/admin/dataset_versions',
        {
          admin: t.adminToken,
        },
      );
      expect(list.body.active.id).toBe(v2024.id);
      expect(list.body.items.find((v) => v.id === v2021.id)).toMatchObject({
        status: 'ready',
        retired_at: expect.any(String),
      });
    }, 180_000);

    it('a process started after the promotion serves the active version before it is ready, then follows rollbacks', async () => {
      const second = await startTestApp({ join: t });
      try {
        expect(await servedVersion(second)).toBe(v2024.id);
        expect((await putin(second)).status).toBe('NEEDS_REVIEW');
        const rollback = await call(t.url, 'POST', `/admin/dataset_versions/${v2021.id}/promote`, {
          admin: t.adminToken,
        });
        expect(rollback.status).toBe(200);
        await waitFor('both processes on 2021', async () =>
          (await servedVersion(second)) === v2021.id && (await servedVersion(t)) === v2021.id
            ? true
            : undefined,
        );
        expect((await putin(second)).status).toBe('APPROVED');
      } finally {
        await second.close();
      }
    }, 180_000);
  });
});

describe('FATF listings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('starts empty, round-trips a valid map and applies it in the process', async () => {
    const empty = await call(t.url, 'GET', '/admin/fatf_listings', { admin: t.adminToken });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({});
    const put = await call(t.url, 'PUT', '/admin/fatf_listings', {
      admin: t.adminToken,
      body: { KP: 'black', IR: 'black', SY: 'grey' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ KP: 'black', IR: 'black', SY: 'grey' });
    const got = await call(t.url, 'GET', '/admin/fatf_listings', { admin: t.adminToken });
    expect(got.body).toEqual({ KP: 'black', IR: 'black', SY: 'grey' });
    expect(t.app.fatf().listings).toEqual({ KP: 'black', IR: 'black', SY: 'grey' });
  });

  it('rejects unknown codes, lower case and unknown values with the key named', async () => {
    const unknown = await call(t.url, 'PUT', '/admin/fatf_listings', {
      admin: t.adminToken,
      body: { XX: 'black' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'XX'] })]);
    const lower = await call(t.url, 'PUT', '/admin/fatf_listings', {
      admin: t.adminToken,
      body: { ir: 'black' },
    });
    expect(lower.status).toBe(422);
    const value = await call(t.url, 'PUT', '/admin/fatf_listings', {
      admin: t.adminToken,
      body: { IR: 'red' },
    });
    expect(value.status).toBe(422);
    expect(value.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'IR'] })]);
    const still = await call(t.url, 'GET', '/admin/fatf_listings', { admin: t.adminToken });
    expect(still.body).toEqual({ KP: 'black', IR: 'black', SY: 'grey' });
  });
});
