import { join } from 'node:path';
import {
  createBenchTenant,
  load,
  machine,
  requireSharedData,
  SHARED_DATA,
  startServer,
  table,
  yentePeople,
} from './harness.js';
import { load1, recordResult } from './results.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function subjects(): string[] {
  // real people who must not hit (yente negatives) mixed with real listed names (UN positives): both paths
  return [...yentePeople('negatives_us.csv', 500), ...yentePeople('positives_un_untreated.csv', 500)].map(
    (p) => JSON.stringify({ mode: 'sync', applicant: { legal_name_last: p.name.slice(0, 200) } }),
  );
}

async function main() {
  requireSharedData();
  const server = await startServer({
    ingest: [{ format: 'ofac_sdn_csv', source: join(SHARED_DATA, 'ofac_sdn') }],
  });
  try {
    const key = await createBenchTenant(server);
    const bodies = subjects();
    // warm-up: JIT and connection pools
    await load('warmup', {
      url: `${server.url}/v1/flows`,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      bodies,
      seconds: 2,
      connections: CONNECTIONS,
    });
    const loadBefore = load1();
    const livez = await load('GET /livez', {
      url: `${server.url}/livez`,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    const flows = await load('POST /v1/flows sync', {
      url: `${server.url}/v1/flows`,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      bodies,
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    process.stdout.write(`\n${new Date().toISOString()} — ${machine()}\n${table([livez, flows])}\n`);
    process.stdout.write(`ratio flow/livez req/s: ${(flows.rps / livez.rps).toFixed(3)}\n`);
    recordResult(
      'http',
      {
        flows_per_s: {
          label: `sync flows, OFAC SDN only, ${CONNECTIONS} connections`,
          unit: 'flows/s',
          value: flows.rps,
        },
        p99_ms: { label: 'p99', unit: 'ms', value: flows.p99_ms },
        ratio_livez: {
          label: 'flows ÷ /livez requests a second, same run',
          unit: '',
          value: Number((flows.rps / livez.rps).toFixed(4)),
        },
      },
      { loadBefore },
    );
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
