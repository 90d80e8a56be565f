import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanGinPendingLists, GinPendingMerger } from '../../server/db/gin-pending.js';
import { dropDatabase } from '../helpers/test-app.js';

const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `vs_test_gin_${process.pid}_${randomBytes(4).toString('hex')}`;
// one connection inserts (its statistics are flushed on demand), another merges
let writer: postgres.Sql;
let sql: postgres.Sql;

async function insertRows(table: 't' | 'u', from: number, n: number): Promise<void> {
  await writer.unsafe(
    `insert into ${table} select i, array['a' || (i % 97), 'b' || (i % 13)], array['w' || i]
     from generate_series(${from}, ${from + n - 1}) i`,
  );
  // the inserts' counts reach pg_stat_user_tables when the backend next goes idle
  await writer`select pg_stat_force_next_flush()`;
  await writer`select 1`;
}

beforeAll(async () => {
  const admin = postgres(`${PG_BASE}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await admin.end();
  writer = postgres(`${PG_BASE}/${dbName}`, { max: 1, onnotice: () => {} });
  sql = postgres(`${PG_BASE}/${dbName}`, { max: 2, onnotice: () => {} });
  // pgstatginindex: a GIN index's pending-list length
  await sql`create extension if not exists pgstattuple`;
  for (const t of ['t', 'u']) {
    await sql.unsafe(`create table ${t} (id int primary key, tags text[] not null, words text[] not null)`);
    await sql.unsafe(`create index ${t}_tags on ${t} using gin (tags)`);
    await sql.unsafe(`create index ${t}_words_no_pending on ${t} using gin (words) with (fastupdate = off)`);
  }
});

afterAll(async () => {
  await writer.end({ timeout: 5 });
  await sql.end({ timeout: 5 });
  await dropDatabase(dbName);
});

describe('GIN pending lists merged in the background, not in an insert', () => {
  it('cleanGinPendingLists merges every GIN pending list of the schema, then finds nothing left', async () => {
    await insertRows('t', 1, 3000);
    const [before] = await sql<{ n: number }[]>`select count(*)::int as n from t where tags @> array['a5']`;
    expect(await cleanGinPendingLists(sql)).toBeGreaterThan(0);
    expect(await cleanGinPendingLists(sql)).toBe(0);
    // the rows are still found through the index once merged
    const [after] = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx<{ n: number }[]>`select count(*)::int as n from t where tags @> array['a5']`;
    });
    expect(after?.n).toBe(before?.n);
    expect(after?.n).toBeGreaterThan(0);
  });

  it('GinPendingMerger merges a table once it has taken enough rows since the last merge, and only then', async () => {
    const merger = new GinPendingMerger(sql, 2000);
    // the first look counts every row the tables ever took: t's 3,000 (nothing pending: merged above)
    await merger.tick();
    await insertRows('t', 10_001, 1500);
    await insertRows('u', 1, 1000);
    expect(await merger.tick()).toBe(0); // t: 1,500 since the last merge; u: 1,000 in all
    await insertRows('t', 20_001, 600);
    expect(await merger.tick()).toBeGreaterThan(0); // t: 2,100
    expect(await merger.tick()).toBe(0);
    // u's list was left alone
    expect(await cleanGinPendingLists(sql)).toBeGreaterThan(0);
  });
  it('GinPendingMerger merges one table a tick, the one that took most rows first', async () => {
    const merger = new GinPendingMerger(sql, 500);
    await merger.tick();
    await merger.tick();
    expect(await merger.tick()).toBe(0); // whatever was due from the test above is merged
    await insertRows('t', 30_001, 700);
    await insertRows('u', 10_001, 900);
    const pending = async (table: 't' | 'u') => {
      const [row] = await sql<{ n: number }[]>`
        select pending_tuples::int as n from pgstatginindex(${`${table}_tags`}::regclass)`;
      return row?.n ?? 0;
    };
    expect(await merger.tick()).toBeGreaterThan(0);
    expect(await pending('u')).toBe(0); // u took more rows: merged first
    expect(await pending('t')).toBeGreaterThan(0); // t waits for the next tick
    expect(await merger.tick()).toBeGreaterThan(0);
    expect(await pending('t')).toBe(0);
    expect(await merger.tick()).toBe(0);
  });
});
