// npm run bench:applicants — applicant `q` search (GET /v1/applicants?q=…) at 1M applicants in one tenant, with the
// pg_trgm index of migration 004. Rows are generated in SQL (generate_series); the measured call is the service's
// own list query (listApplicants), so the figures are database + query-building time without HTTP.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { listApplicants } from '../server/applicants/applicant-service.js';
import { migrate } from '../server/db/migrate.js';
import { connectSql, ensureDatabase } from '../server/db/sql.js';
import { machine } from './harness.js';
import { load1, recordResult } from './results.js';

const ROWS = Number(process.env.BENCH_APPLICANTS ?? 1_000_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const PG_BASE = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const PII_KEY = 'bench-pii-key-0123456789';

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main() {
  const db = `vs_bench_applicants_${randomBytes(4).toString('hex')}`;
  const url = `${PG_BASE}/${db}`;
  await ensureDatabase(url);
  const sql = connectSql(url, 4);
  try {
    await migrate(sql);
    const [tenant] = await sql<{ id: string }[]>`
      insert into tenants (name, plan) values ('bench', 'contract') returning id`;
    if (!tenant) throw new Error('no tenant');
    const t0 = performance.now();
    await sql`drop index applicants_search_trgm`;
    await sql`
      insert into applicants (tenant_id, external_id, legal_name_first, legal_name_last, email_hash, internal_status)
      select ${tenant.id},
        'CUST-' || lpad(i::text, 8, '0'),
        (array['Anna','Boris','Carla','Dmitri','Elena','Farid','Grace','Hiro','Ines','Jonas','Kemal','Lena','Mateo',
               'Nadia','Omar','Priya','Quentin','Rosa','Sven','Tariq','Uma','Viktor','Wen','Xavier','Yara','Zoltan'])
          [1 + (i % 26)],
        initcap(substr(md5(i::text), 1, 3 + (i % 5))) || (array['son','ova','ez','ski','berg','ini','ard','ley'])[1 + (i % 8)],
        md5(i::text) || md5((i + 7)::text),
        case when i % 10 = 0 then 'under_review' else 'active' end
      from generate_series(1, ${ROWS}) as i`;
    // ten needles with a distinctive surname
    await sql`
      update applicants set legal_name_last = 'Zephyrquorrel'
      where tenant_id = ${tenant.id} and seq in (select seq from applicants order by seq limit 10 offset ${Math.floor(ROWS / 3)})`;
    const loaded = performance.now();
    await sql`create index applicants_search_trgm on applicants using gin (search_text gin_trgm_ops)`;
    await sql`analyze applicants`;
    const indexed = performance.now();
    process.stdout.write(
      `${ROWS} applicants generated in ${((loaded - t0) / 1000).toFixed(1)} s, trigram index built in ${((indexed - loaded) / 1000).toFixed(1)} s\n`,
    );

    const deps = { sql, piiKey: PII_KEY };
    const hashOf = async (n: number) =>
      (await sql<{ h: string }[]>`select md5(${String(n)}) as h`)[0]?.h.slice(5, 17) ?? '';
    const cases: { name: string; query: (i: number) => Promise<{ q: string; status?: 'under_review' }> }[] = [
      { name: 'rare surname (10 rows)', query: async () => ({ q: 'zephyrquor' }) },
      {
        name: 'common 3-char substring',
        query: async (i) => ({ q: ['ann', 'ova', 'ber', 'ski'][i % 4] ?? 'ann' }),
      },
      {
        name: 'external_id prefix (~100 rows)',
        query: async (i) => ({ q: `cust-${String((i * 7919) % Math.floor(ROWS / 100)).padStart(6, '0')}` }),
      },
      {
        name: 'email_hash fragment (1 row)',
        query: async (i) => ({ q: await hashOf(1 + ((i * 104729) % ROWS)) }),
      },
      { name: 'no match', query: async (i) => ({ q: `qzxqv${i % 10}` }) },
      { name: 'status + common substring', query: async () => ({ q: 'elena', status: 'under_review' }) },
    ];
    const rows: string[][] = [];
    const all: number[] = [];
    const loadBefore = load1();
    let slowest = { name: '', p99: 0 };
    for (const c of cases) {
      // warm-up
      for (let i = 0; i < 5; i++) await listApplicants(deps, tenant.id, await c.query(i));
      const times: number[] = [];
      let found = 0;
      for (let i = 0; i < ITERATIONS; i++) {
        const q = await c.query(i);
        const s = performance.now();
        const page = await listApplicants(deps, tenant.id, { ...q, limit: 50 });
        times.push(performance.now() - s);
        found += page.items.length;
      }
      times.sort((a, b) => a - b);
      all.push(...times);
      if (pct(times, 99) > slowest.p99) slowest = { name: c.name, p99: pct(times, 99) };
      rows.push([
        c.name,
        String(ITERATIONS),
        (found / ITERATIONS).toFixed(1),
        pct(times, 50).toFixed(1),
        pct(times, 99).toFixed(1),
        (times[times.length - 1] ?? 0).toFixed(1),
      ]);
    }
    all.sort((a, b) => a - b);
    rows.push([
      'all',
      String(all.length),
      '',
      pct(all, 50).toFixed(1),
      pct(all, 99).toFixed(1),
      (all[all.length - 1] ?? 0).toFixed(1),
    ]);
    process.stdout.write(`\nmachine: ${machine()}\n\n`);
    process.stdout.write(
      '| query | runs | rows/page | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|\n',
    );
    for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
    const ms = (n: number) => Number(n.toFixed(1));
    recordResult(
      'applicants',
      {
        all_p50_ms: {
          label: `q search at ${ROWS.toLocaleString('en')} applicants, all cases, p50`,
          unit: 'ms',
          value: ms(pct(all, 50)),
        },
        all_p99_ms: {
          label: `q search at ${ROWS.toLocaleString('en')} applicants, all cases, p99`,
          unit: 'ms',
          value: ms(pct(all, 99)),
        },
        slowest_p99_ms: { label: `slowest case (${slowest.name}), p99`, unit: 'ms', value: ms(slowest.p99) },
      },
      { loadBefore },
    );
  } finally {
    await sql.end({ timeout: 5 });
    if (!process.env.BENCH_KEEP_DB) {
      const admin = postgres(`${PG_BASE}/postgres`, { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists "${db}" with (force)`);
      await admin.end({ timeout: 5 });
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
