import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/cli.js';

/*
 * postgres.js 3.4.9 buffers small writes behind a setImmediate; when the connection closes first, the immediate
 * writes to a null socket and throws outside every promise: the process dies (porsager/postgres#1154, #1208).
 * It killed a test process during a Postgres outage (webhooks-outage). scripts/patch-postgres.mjs guards it at build.
 * The script runs in a child process because the unpatched failure is an uncaught exception.
 */
const SCRIPT = `
import postgres from 'postgres';
const sql = postgres({ host: process.env.PGHOST ?? '127.0.0.1', user: 'postgres', database: 'postgres', max: 2, onnotice: () => {} });
const reserved = await sql.reserve();
const [{ pid }] = await reserved\`select pg_backend_pid() as pid\`;
await sql\`select pg_terminate_backend(\${pid})\`;
await new Promise((r) => setTimeout(r, 200));
const outcome = await reserved\`select 1\`.then(() => 'ok', (e) => e.code);
reserved.release();
const after = await sql\`select 2 as two\`;
await sql.end({ timeout: 1 });
console.log(JSON.stringify({ outcome, after: after[0].two }));
`;

describe('postgres driver on a closed connection', () => {
  it('rejects the query with CONNECTION_CLOSED instead of crashing the process', async () => {
    const { code, stdout, stderr } = await runNode(['--input-type=module', '-e', SCRIPT]);
    expect(stderr).not.toContain("reading 'write'");
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim())).toEqual({ outcome: 'CONNECTION_CLOSED', after: 2 });
  }, 30_000);
});
