import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishChunks } from '../../server/batches/batch-service.js';
import type { BatchRow } from '../../server/batches/batch-store.js';
import { MIGRATIONS_DIR } from '../../server/paths.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait.js';

const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

// Issue 14 moved a batch's subjects from one row each (batch_subjects) to one row per chunk (batch_chunks,
// migration 014). A batch stored and partly screened before the migration must finish after it: the records
// already settled are neither screened again nor counted twice.
describe('a batch stored before migration 014', () => {
  const db = `vs_test_mig14_${randomBytes(4).toString('hex')}`;
  const batchId = randomUUID();
  let t: TestApp;

  beforeAll(async () => {
    const admin = postgres(`${PG_BASE}/postgres`, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${db}"`);
    await admin.end();
    // the schema as it was before 014, and a batch in it: 600 subjects in chunks of 250; chunk 0 screened, record
    // 300 failed and record 301 screened on their own, the rest pending
    const old = postgres(`${PG_BASE}/${db}`, { max: 1, onnotice: () => {} });
    await old`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort();
    for (const f of files.filter((f) => f < '014')) {
      await old.unsafe(await readFile(join(MIGRATIONS_DIR, f), 'utf8'));
      await old`insert into schema_migrations (name) values (${f})`;
    }
    const [tenant] = await old<{ id: string }[]>`
      insert into tenants (name, plan) values ('Before 014', 'contract') returning id`;
    await old`
      insert into check_batches (id, tenant_id, status, use_case, datasets, policy_version, subject_count,
                                 completed_count, error_count, chunk_size, error)
      values (${batchId}, ${tenant?.id as string}, 'processing', 'lookback', '{sanctions}', 'v1', 600, 251, 1, 250,
              '1 of 600 subjects could not be screened; first: record 300: gone')`;
    await old`
      insert into batch_subjects (batch_id, idx, tenant_id, external_id, subject, status, error)
      select ${batchId}, i, ${tenant?.id as string}, 'cust-' || i,
             jsonb_build_object('name', 'Customer Number' || i || ' Cleanname', 'type', 'person'),
             case when i < 250 or i = 301 then 'done' when i = 300 then 'error' else 'pending' end,
             case when i = 300 then 'record 300: gone' end
      from generate_series(0, 599) i`;
    await old.end();
    t = await startTestApp({ env: { DATABASE_URL: `${PG_BASE}/${db}` } });
  });
  afterAll(async () => {
    await t?.close();
    const admin = postgres(`${PG_BASE}/postgres`, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${db}" with (force)`);
    await admin.end();
  });

  it('finishes with the settled records kept and only the pending ones screened', async () => {
    const [batch] = await t.app.sql<BatchRow[]>`select * from check_batches where id = ${batchId}`;
    // its chunks queued again, as the stranded-batch sweep or a redelivery would
    await publishChunks({ sql: t.app.sql, bus: t.app.bus }, batch as BatchRow);
    const done = await waitFor('the batch to complete', async () => {
      const [b] = await t.app.sql<BatchRow[]>`select * from check_batches where id = ${batchId}`;
      return b?.status === 'completed' ? b : undefined;
    });
    expect(done).toMatchObject({ subject_count: 600, completed_count: 599, error_count: 1 });
    expect(done.error).toBe('1 of 600 subjects could not be screened; first: record 300: gone');
    const checks = await t.app.sql<{ input_ref: string }[]>`
      select input_ref from checks where batch_id = ${batchId}`;
    const screened = new Set(checks.map((c) => Number(c.input_ref.split(':')[1])));
    expect(checks.length).toBe(348);
    expect(screened.size).toBe(348);
    for (const idx of [0, 249, 300, 301]) expect(screened.has(idx)).toBe(false);
    for (const idx of [250, 299, 302, 499, 500, 599]) expect(screened.has(idx)).toBe(true);
    const [tables] = await t.app.sql<
      { subjects: string | null }[]
    >`select to_regclass('batch_subjects')::text as subjects`;
    expect(tables?.subjects).toBeNull();
  });
});
