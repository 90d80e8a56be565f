import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/cli.js';

/*
 * postgres.js 3.4.9 runs its own `pg_type` query as a new connection's first statement and holds no promise of it:
 * when that query fails, the rejection is unhandled and the process dies (porsager/postgres#279, #1192, #1205). It
 * killed bench servers at start under load, when the database watchdog dropped a slow probe connection mid-fetch.
 * scripts/patch-postgres.mjs guards it at build. The types query is made to fail every time, whatever the machine's
 * speed (a 1 ms statement_timeout alone lost the race on a fast machine): the new connection's transactions are
 * serializable, read-only and deferrable, so its first statement waits for a safe snapshot while another connection
 * holds a serializable read-write transaction open, and a 200 ms statement_timeout cancels it there. The script runs
 * in a child process because the unpatched failure is an unhandled rejection (checked against postgres.js 3.4.9
 * unpatched: it exits with the unhandled 57014).
 */
const SCRIPT = `
import postgres from 'postgres';
process.on('unhandledRejection', (e) => { console.log(JSON.stringify({ unhandled: e.code ?? String(e) })); process.exit(3); });
const opts = { host: process.env.PGHOST ?? '127.0.0.1', user: 'postgres', database: 'postgres', max: 1, onnotice: () => {} };
const blocker = postgres(opts);
let ready;
const isReady = new Promise((r) => { ready = r; });
let release;
const held = new Promise((r) => { release = r; });
const blocking = blocker.begin('isolation level serializable', async (t) => { await t\`select 1\`; ready(); await held; });
await isReady;
const waiting = { statement_timeout: 200, default_transaction_isolation: 'serializable', default_transaction_read_only: 'on', default_transaction_deferrable: 'on' };
const cancelled = postgres({ ...opts, connection: waiting });
const first = await cancelled\`select 1 as one\`.then(() => 'ok', (e) => e.code);
release();
await blocking;
await blocker.end({ timeout: 1 });
await new Promise((r) => setTimeout(r, 100));
await cancelled.end({ timeout: 1 });
const sql = postgres(opts);
const [{ xs }] = await sql\`select array['a', 'b']::text[] as xs\`;
await sql.end({ timeout: 1 });
console.log(JSON.stringify({ first, xs }));
`;

describe('postgres driver when its array-types query fails', () => {
  it('fails the first query with the error instead of crashing the process', async () => {
    const { code, stdout } = await runNode(['--input-type=module', '-e', SCRIPT]);
    const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
    expect(out).toEqual({ first: '57014', xs: ['a', 'b'] });
    expect(code).toBe(0);
  }, 30_000);
});
