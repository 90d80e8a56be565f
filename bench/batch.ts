import { availableParallelism } from 'node:os';
import {
  createBenchTenant,
  loadAllLists,
  machine,
  requireSharedData,
  startServer,
  type YentePerson,
  yentePeople,
} from './harness.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);

function subjects(): YentePerson[] {
  const all = [
    ...yentePeople('negatives_global.csv'),
    ...yentePeople('negatives_us.csv'),
    ...yentePeople('positives_un_untreated.csv'),
  ].map((p) => ({ ...p, name: p.name.slice(0, 500) }));
  return Array.from({ length: RECORDS }, (_, i) => all[i % all.length] as YentePerson);
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.split(' ').pop());
  return total;
}

async function main() {
  requireSharedData();
  const threads = availableParallelism();
  const server = await startServer({ ingest: [], threads });
  try {
    const version = await loadAllLists(server);
    const key = await createBenchTenant(server);
    const records = subjects().map((s, i) => ({ external_id: `c${i}`, subjects: [s] }));
    const body = JSON.stringify({ records, datasets: ['sanctions', 'pep', 'debarment'] });
    const busyBefore = await metric(server.url, 'matcher_busy_seconds_total');
    const t0 = performance.now();
    const res = await fetch(`${server.url}/v1/check_batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${await res.text()}`);
    const accepted_ms = performance.now() - t0;
    const { id } = (await res.json()) as { id: string };
    let b: { status: string; completed_count: number; error_count: number; subject_count: number };
    for (;;) {
      b = (await (
        await fetch(`${server.url}/v1/check_batches/${id}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as typeof b;
      if (b.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const wall_s = (performance.now() - t0) / 1000;
    const busy_s = (await metric(server.url, 'matcher_busy_seconds_total')) - busyBefore;
    process.stdout.write(
      `\n${new Date().toISOString()} — ${machine()}\n` +
        `dataset: ${version.entities} entities, all 8 real lists; body ${(body.length / 2 ** 20).toFixed(1)} MiB\n` +
        `records ${b.subject_count}: completed ${b.completed_count}, errors ${b.error_count}\n` +
        `accepted (202) after ${(accepted_ms / 1000).toFixed(1)} s; completed after ${wall_s.toFixed(1)} s (target ≤ 50 s)\n` +
        `throughput ${(b.subject_count / wall_s).toFixed(0)} records/s\n` +
        `matcher utilisation ${((busy_s / (wall_s * threads)) * 100).toFixed(0)} % of ${threads} threads ` +
        `(time matcher threads spent screening ÷ wall × threads)\n`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
