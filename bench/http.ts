// npm run bench:http — autocannon on sync aml_screen flows against the real OFAC SDN list, and on /livez in the
// same run as the baseline (the machine is shared: read the ratio, not the absolute numbers).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createBenchTenant,
  load,
  machine,
  requireSharedData,
  SHARED_DATA,
  startServer,
  table,
} from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

function subjects(): string[] {
  // real people who must not hit (yente negatives) mixed with real listed names (UN positives): both paths
  const lines = (f: string) =>
    readFileSync(join(SHARED_DATA, 'matching_cases/yente_candidate_generation_benchmark', f), 'utf8')
      .split('\n')
      .slice(1, 501);
  const names = [...lines('negatives_us.csv'), ...lines('positives_un_untreated.csv')]
    .map((l) => l.split(',')[0]?.replaceAll('"', '').trim())
    .filter((n): n is string => !!n);
  return names.map((full) =>
    JSON.stringify({ mode: 'sync', applicant: { legal_name_last: full.slice(0, 200) } }),
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
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
