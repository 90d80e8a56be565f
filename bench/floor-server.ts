// bench:floor's server: the design card's path for a sync flow with none of the application in it — a uWebSockets.js
// POST whose JSON body is parsed, one Piscina task (two threads, as the api runs them) that returns at once, one
// durable row a flow written by a group-commit writer (one statement in flight, the flows that arrive meanwhile go
// together in the next, as server/flows/flow-store.ts does) through postgres.js, and a JSON answer. What a flow costs
// here is the floor under what the api pays for it on the same machine (bench/floor.ts).

import uWS from 'uWebSockets.js';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import postgres from 'postgres';

const THREADS = Math.max(1, Math.min(2, availableParallelism()));
const BODY_LIMIT = 64 * 1024;
const sql = postgres(process.env.DATABASE_URL as string, { max: 4, onnotice: () => {} });
await sql`create table if not exists floor_flows (
  id uuid primary key, created_at timestamptz not null default now(), body jsonb not null)`;

const pool = new Piscina<{ name: string }, { name: string; matches: unknown[] }>({
  filename: fileURLToPath(new URL('./floor-task.js', import.meta.url)),
  minThreads: THREADS,
  maxThreads: THREADS,
  maxQueue: 1024,
  idleTimeout: Number.POSITIVE_INFINITY,
  recordTiming: false,
});

interface Row {
  id: string;
  body: unknown;
}
interface Pending {
  row: Row;
  done: (err?: unknown) => void;
}

/** One statement in flight; the rows that arrive meanwhile go together in the next one. */
class Writer {
  private queue: Pending[] = [];
  private inflight = false;
  write(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, done: (err) => (err ? reject(err) : resolve()) });
      this.pump();
    });
  }
  private pump(): void {
    if (this.inflight || !this.queue.length) return;
    const batch = this.queue.splice(0, 64);
    this.inflight = true;
    sql`insert into floor_flows (id, body)
        select id, body from jsonb_to_recordset(${sql.json(batch.map((b) => b.row) as unknown as postgres.JSONValue)})
          as x(id uuid, body jsonb)`
      .then(
        () => {
          for (const b of batch) b.done();
        },
        (err: unknown) => {
          for (const b of batch) b.done(err);
        },
      )
      .finally(() => {
        this.inflight = false;
        this.pump();
      });
  }
}
const writer = new Writer();

async function flow(body: Buffer): Promise<{ status: string; payload: string }> {
  let input: { applicant?: { legal_name_last?: unknown } };
  try {
    input = JSON.parse(body.toString('utf8')) as typeof input;
  } catch {
    return { status: '400 Bad Request', payload: '{"error":{"code":"invalid_json"}}' };
  }
  const name = typeof input.applicant?.legal_name_last === 'string' ? input.applicant.legal_name_last : '';
  const screened = await pool.run({ name });
  const id = randomUUID();
  const answer = {
    id,
    status: 'APPROVED',
    decision: 'AUTO_APPROVED',
    checks: [{ result: 'clear', ...screened }],
  };
  await writer.write({ id, body: answer });
  return { status: '201 Created', payload: JSON.stringify(answer) };
}

const app = uWS.App();
app.post('/v1/flows', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const chunks: Buffer[] = [];
  let size = 0;
  res.onData((chunk, isLast) => {
    size += chunk.byteLength;
    if (size > BODY_LIMIT) {
      if (!aborted) res.cork(() => res.writeStatus('413 Payload Too Large').end('', true));
      aborted = true;
      return;
    }
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast || aborted) return;
    flow(Buffer.concat(chunks)).then(
      ({ status, payload }) => {
        if (!aborted)
          res.cork(() =>
            res.writeStatus(status).writeHeader('content-type', 'application/json').end(payload),
          );
      },
      () => {
        if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').end('{}'));
      },
    );
  });
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('floor server: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`listening on http://127.0.0.1:${uWS.us_socket_local_port(socket)}\n`);
});
process.on('SIGTERM', () => {
  void Promise.all([pool.destroy(), sql.end({ timeout: 2 })]).finally(() => process.exit(0));
});
