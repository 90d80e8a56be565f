// npm run bench:flows — sync checks-only flows with every real list loaded, against /livez in the same run.

import {
  createBenchTenant,
  load,
  loadAllLists,
  machine,
  requireSharedData,
  startServer,
  table,
  yentePeople,
} from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function bodies(): string[] {
  return [...yentePeople('negatives_global.csv', 1000), ...yentePeople('positives_un_untreated.csv', 1000)]
    .filter((p) => p.name.length <= 200)
    .map((p) =>
      JSON.stringify({
        mode: 'sync',
        applicant: { legal_name_last: p.name },
        datasets: ['sanctions', 'pep'],
      }),
    );
}

async function main() {
  requireSharedData();
  const server = await startServer({ ingest: [] });
  try {
    const version = await loadAllLists(server);
    const key = await createBenchTenant(server);
    const b = bodies();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    await load('warmup', {
      url: `${server.url}/v1/flows`,
      method: 'POST',
      headers,
      bodies: b,
      seconds: 3,
      connections: CONNECTIONS,
    });
    const livez = await load('GET /livez', {
      url: `${server.url}/livez`,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    const flows = await load('POST /v1/flows sync (all lists)', {
      url: `${server.url}/v1/flows`,
      method: 'POST',
      headers,
      bodies: b,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    process.stdout.write(
      `\n${new Date().toISOString()} — ${machine()}\n` +
        `dataset: ${version.entities} entities from ${8} lists (build ${version.build_ms} ms)\n${table([livez, flows])}\n` +
        `ratio flow/livez req/s: ${(flows.rps / livez.rps).toFixed(3)}; target ≥ 1500 flows/s with p99 ≤ 20 ms\n`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
