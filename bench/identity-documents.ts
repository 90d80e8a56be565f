// Document (MRZ) reading benchmark for identity/document: every image under documents/passporteye/, read twice in
// two different shuffled orders by one reader in a worker thread (as the service runs it). Reports accepted
// readings with every check digit valid against PassportEye's own score (the number in each testdata/ file name),
// the tests/ specimens against mrz_test.py, the accepted readings checked by eye, whether the output depends on
// the order, time per document and the worker's RSS, and the capture-quality verdict's time on each image (one
// at a time on a thread of role quality, as the journey's capture step asks for it). Prints a markdown report.
// Run: npm run bench:identity:documents (needs ../shared/data). While iterating: BENCH_FILES=can,fra (images whose
// path contains one of these) and BENCH_ORDERS=1 (one order only; "same output in both orders" is then not
// measured). Final numbers come from the full run.
// A/B in one run (the machine is shared: only ratios within a run compare): BENCH_AB=1 reads the same order by a
// baseline (A) and by this build as it ships (B), alternating (each image by both, who goes first swapped from
// image to image), then the licence set by both; the report is B's with A's times
// and the ratios B/A beside it. The baseline is the compiled reader under BENCH_BASELINE (the dist/ directory of an
// earlier commit's build, e.g. `git archive <commit> | tar -x -C /tmp/base`, node_modules linked, `npx tsc -p
// tsconfig.build.json`; BENCH_BASELINE_NAME names it in the report), else this build reading by the OCR search
// alone (locateFirst false).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { DocumentReading, MrzFields } from '../identity/document/index.js';
import type { QualityLook } from '../identity/quality.js';
import type { IdentityOutput, IdentityTask } from '../identity/worker.js';
import { qualityLook } from '../server/documents/quality-service.js';
import { machine, SHARED_DATA } from './harness.js';
import { type Licence, licenceBack, type Photographing, photograph } from './licence-images.js';
import { SPECIMEN_TD2, SPECIMEN_TD3 } from './mrz-specimens.js';
import { type Figure, load1, recordResult } from './results.js';

const DOCS = path.join(SHARED_DATA, 'documents', 'passporteye');
if (!existsSync(path.join(DOCS, 'testdata'))) {
  process.stderr.write(
    `bench:identity:documents needs ../shared/data/documents/passporteye (not at ${DOCS})\n`,
  );
  process.exit(2);
}
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

/** Fields of the MRZ as read by eye from the images (file viewer), for the images checked so far. An accepted
 * reading must equal these; an accepted reading of an image not listed is reported as not verified. */
const BY_EYE: Record<string, Partial<MrzFields>> = {
  // printed vertically along the page
  'testdata/0_pass-lva.jpg': {
    document_type: 'PA',
    issuing_country: 'LVA',
    document_number: 'LT0000000',
    surname: 'MOHAMADA',
    given_names: 'FARIDA',
    nationality: 'XXC',
    birth_date: '1986-05-10',
    sex: 'F',
    expiry_date: '2012-10-31',
  },
  'testdata/100_id-che.jpg': {
    document_type: 'ID',
    issuing_country: 'CHE',
    document_number: 'S0002068',
    surname: 'VADIS',
    given_names: 'QUO',
    nationality: 'CHE',
    birth_date: '1981-02-28',
    sex: 'F',
    expiry_date: '2013-01-01',
  },
  // no sex in the MRZ of German identity cards ('<')
  'testdata/53_id-d.jpg': {
    document_type: 'ID',
    issuing_country: 'D',
    document_number: 'T22000129',
    surname: 'MUSTERMANN',
    given_names: 'ERIKA',
    nationality: 'D',
    birth_date: '1964-08-12',
    sex: 'X',
    expiry_date: '2020-10-31',
  },
  'testdata/79_pass-hun.png': {
    issuing_country: 'HUN',
    document_number: 'BD0002028',
    surname: 'HANDRA',
    given_names: 'ROZALIA IRMA',
    nationality: 'HUN',
    birth_date: '1978-02-22',
    sex: 'F',
    expiry_date: '2022-03-01',
  },
  'testdata/100_pass-cze.jpg': {
    document_number: '99003853',
    surname: 'SPECIMEN',
    given_names: 'VZOR',
    nationality: 'CZE',
    birth_date: '2011-01-01',
    sex: 'M',
    expiry_date: '2012-07-04',
    optional_data: '110101111',
  },
  'testdata/100_pass-cze2.jpg': {
    document_number: '99009054',
    surname: 'SPECIMEN',
    given_names: 'VZOR',
    birth_date: '1969-06-22',
    sex: 'F',
    expiry_date: '2016-07-29',
    optional_data: '6956220612',
  },
  'testdata/100_pass-isl.png': {
    document_number: 'A0000000',
    surname: 'AEVARSDOTTIR',
    given_names: 'THURIDUR OESP',
    birth_date: '1966-12-31',
    sex: 'F',
    expiry_date: '2009-05-26',
    optional_data: '311266<9539',
  },
  'testdata/100_pass-lux.jpg': {
    document_number: 'S998527',
    surname: 'MAUS',
    given_names: 'KETTY',
    birth_date: '1978-06-20',
    sex: 'F',
    expiry_date: '2011-08-08',
    optional_data: '03060021041',
  },
  // the image prints the nationality as UT0 (zero); the repair by field type reads it UTO
  'testdata/100_pass-uto.jpg': {
    document_number: 'L898902C3',
    surname: 'ERIKSSON',
    given_names: 'ANNA MARIA',
  },
  'testdata/100_pass2-uto.jpg': {
    document_number: 'D23145890',
    surname: 'ERIKSSON',
    given_names: 'ANNA MARIA',
  },
  'testdata/100_pass-polx.jpg': {
    document_number: 'AA0000000',
    surname: 'KOWALSKA KWIATKOWSKA',
    given_names: 'JOANNA',
    birth_date: '1960-02-08',
    expiry_date: '2014-12-31',
  },
  'testdata/100_visa-polx.jpg': {
    format: 'MRVB',
    document_type: 'VC',
    document_number: 'PL0000000',
    surname: 'KOWALSKA KWIATKOWSKA',
    given_names: 'BEATA',
    birth_date: '1960-02-08',
    expiry_date: '2005-05-01',
  },
  'testdata/100_pass-ltu.jpg': {
    document_number: '00000000',
    surname: 'BASANAVICIENE',
    given_names: 'BIRUTE',
    birth_date: '1959-11-23',
    sex: 'F',
    expiry_date: '2012-01-01',
    optional_data: '45911231023',
  },
  'testdata/100_pass-chn.jpg': {
    document_number: '000000000',
    surname: 'LIN',
    given_names: 'MEI HUA',
    nationality: 'TWN',
    birth_date: '1976-01-01',
    expiry_date: '2014-04-01',
    optional_data: 'A234567893',
  },
  'testdata/100_id-mac.jpg': {
    document_number: '12281507',
    surname: 'CHONG',
    given_names: 'KA KEONG',
    birth_date: '1961-06-22',
    expiry_date: '2012-12-30',
  },
  'testdata/100_pass-bdr.jpg': {
    document_number: 'CA000000',
    surname: 'MUSTERMANN',
    given_names: 'ERIKA',
    birth_date: '1964-08-12',
    expiry_date: '2018-02-21',
  },
  'testdata/100_pass-hrv.jpg': {
    document_number: '007007007',
    surname: 'SPECIMEN',
    given_names: 'SPECIMEN',
    birth_date: '1982-12-25',
    expiry_date: '2014-07-01',
  },
  // P<CANMARTIN<<SARAH<<… / ZE000509<9CAN8501019F2301147<<<<<<<<<<<<<<08 (visual zone: 01 JAN 85, 14 JAN 23)
  'testdata/79_pass-can.jpg': {
    document_type: 'P',
    issuing_country: 'CAN',
    nationality: 'CAN',
    optional_data: null,
    document_number: 'ZE000509',
    surname: 'MARTIN',
    given_names: 'SARAH',
    birth_date: '1985-01-01',
    sex: 'F',
    expiry_date: '2023-01-14',
  },
  // P<FRAULYSSE<<CHRISTOPHE<<… / 08CD503380FRA6004103M1806058<<<<<<<<<<<<<<06 (the visual zone: 08CD50338,
  // 10.04.1960, 05.06.2018)
  'testdata/43_pass-fra.jpg': {
    document_type: 'P',
    issuing_country: 'FRA',
    document_number: '08CD50338',
    surname: 'ULYSSE',
    given_names: 'CHRISTOPHE',
    nationality: 'FRA',
    birth_date: '1960-04-10',
    sex: 'M',
    expiry_date: '2018-06-05',
    optional_data: null,
  },
  'testdata/24_pass-egy.jpg': {
    document_number: 'A00051376',
    surname: 'MABROUK',
    given_names: 'ALAAELDIN ISMAIL MOHAMED',
    birth_date: '1960-02-20',
    sex: 'M',
    expiry_date: '2015-03-15',
  },
  'testdata/25_pass-uto.jpg': {
    document_number: 'L898902C3',
    surname: 'ERIKSSON',
    given_names: 'ANNA MARIA',
  },
  // a photograph of the page, turned ~20°: P<AUSCITIZEN<<JANE<<… / PA09404097AUS8406077F1903212<17331334P<<<<08
  'testdata/62_pass-aus.png': {
    document_type: 'P',
    issuing_country: 'AUS',
    document_number: 'PA0940409',
    surname: 'CITIZEN',
    given_names: 'JANE',
    nationality: 'AUS',
    birth_date: '1984-06-07',
    sex: 'F',
    expiry_date: '2019-03-21',
    optional_data: '17331334P',
  },
};

/** mrz_test.py's expectations, as our fields */
const SPECIMENS: Record<string, MrzFields> = {
  'tests/passport-td3.jpg': SPECIMEN_TD3,
  'tests/passport-td3.png': SPECIMEN_TD3,
  'tests/passport-td2.jpg': SPECIMEN_TD2,
  'tests/passport-td2.png': SPECIMEN_TD2,
};

interface Result {
  file: string;
  reading: DocumentReading;
}

/** A deterministic shuffle (mulberry32), so that a run can be repeated. */
function shuffled<T>(xs: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The compiled reader this bench belongs to. */
const THIS_READER = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../identity/document/index.js',
);

/** The identity thread this bench belongs to (identity/worker.ts, as server/identity/identity-pool.ts runs it). */
const IDENTITY_WORKER = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../identity/worker.js',
);

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
(async () => {
  const { createDocumentReader } = await import(workerData.module);
  const reader = await createDocumentReader(workerData.options);
  parentPort.on('message', async (m) => {
    if (m === 'rss') return parentPort.postMessage({ rss: process.memoryUsage().rss });
    if (m === 'close') { await reader.close(); return parentPort.postMessage({ closed: true }); }
    const reading = await reader.read(readFileSync(m.file), m.side);
    parentPort.postMessage({ file: m.file, reading });
  });
  parentPort.postMessage({ ready: true });
})();
`;

interface OrderRun {
  results: Result[];
  rss: number;
  /** from the worker's start to its first reading (the models load on start) */
  first_ms: number;
}

/** Which reader a run uses: the compiled module and its options. */
interface ReaderUnderTest {
  module: string;
  options: Record<string, unknown>;
}

// BENCH_PROFILE=1: this build's reads say where their time went (ReaderOptions.profile), summed in the report
const profiling = process.env.BENCH_PROFILE === '1';
const SHIPPED: ReaderUnderTest = { module: THIS_READER, options: profiling ? { profile: true } : {} };

/** A reader on a new worker: `read` one file at a time (the first after the worker's start is timed from it),
 * then `close`. */
function openSession(opts: { reader?: ReaderUnderTest; dir?: string; side?: string } = {}) {
  const started = performance.now();
  const w = new Worker(WORKER, { eval: true, workerData: opts.reader ?? SHIPPED });
  const next = () => new Promise<Record<string, unknown>>((resolve) => w.once('message', resolve));
  const ready = next();
  const run: OrderRun = { results: [], rss: 0, first_ms: 0 };
  return {
    run,
    async read(f: string): Promise<void> {
      await ready;
      w.postMessage({ file: path.join(opts.dir ?? DOCS, f), side: opts.side ?? 'single' });
      const m = (await next()) as { reading: DocumentReading };
      run.first_ms ||= Math.round(performance.now() - started);
      run.results.push({ file: f, reading: m.reading });
      w.postMessage('rss');
      run.rss = Math.max(run.rss, ((await next()) as { rss: number }).rss);
      // with BENCH_PROFILE=1, the path the read took: the located band's reading, or the OCR search after it
      const route = (m.reading.profile ?? [])
        .map((p) => p.stage)
        .filter((s) => s === 'located' || s === 'fallback' || s === 'search')
        .join('→');
      log(
        `${f}: ${m.reading.accepted ? 'accepted' : m.reading.reasons.join(',') || '-'} ${m.reading.took_ms} ms${route ? ` (${route})` : ''}`,
      );
    },
    async close(): Promise<void> {
      await ready;
      w.postMessage('close');
      await next();
      await w.terminate();
    },
  };
}

/** Reads `files` in order on a new worker (a new reader); `dir` prefixes them, `side` is told the reader. */
async function runOrder(
  files: string[],
  opts: { reader?: ReaderUnderTest; dir?: string; side?: string } = {},
): Promise<OrderRun> {
  const session = openSession(opts);
  for (const f of files) await session.read(f);
  await session.close();
  return session.run;
}

/** Reads `files` in order by two readers, `first` and `second`, alternating: each file by both before the next,
 * the one to go first swapped from file to file, so that a change in the machine's load falls on both alike. Each
 * reader's worker starts just before its first document (the other one idle), so both first documents are timed
 * from a worker's start. */
async function runPair(
  files: string[],
  first: ReaderUnderTest,
  second: ReaderUnderTest,
  opts: { dir?: string; side?: string } = {},
): Promise<[OrderRun, OrderRun]> {
  const one = openSession({ ...opts, reader: first });
  const [head, ...rest] = files;
  if (head !== undefined) await one.read(head);
  const two = openSession({ ...opts, reader: second });
  if (head !== undefined) await two.read(head);
  for (const [i, f] of rest.entries()) {
    const [x, y] = i % 2 ? [one, two] : [two, one];
    await x.read(f);
    await y.read(f);
  }
  await Promise.all([one.close(), two.close()]);
  return [one.run, two.run];
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

const only = (process.env.BENCH_FILES ?? '').split(',').filter(Boolean);
const picked = (f: string) => only.length === 0 || only.some((x) => f.includes(x));
const testdata = readdirSync(path.join(DOCS, 'testdata'))
  .filter((f) => /\.(jpe?g|png)$/i.test(f))
  .map((f) => `testdata/${f}`)
  .filter(picked);
const tests = readdirSync(path.join(DOCS, 'tests'))
  .filter((f) => /\.(jpe?g|png)$/i.test(f))
  .map((f) => `tests/${f}`)
  .filter(picked);
const all = [...testdata, ...tests].sort();
const orders = process.env.BENCH_ORDERS === '1' ? 1 : 2;

// BENCH_AB=1: the same order read twice, by the baseline (A) and as this build ships (B); the report is B's, with
// A's times beside it
const ab = process.env.BENCH_AB === '1';
const baselineDir = process.env.BENCH_BASELINE;
const baseline: ReaderUnderTest = baselineDir
  ? { module: path.resolve(baselineDir, 'identity/document/index.js'), options: {} }
  : { module: THIS_READER, options: { locateFirst: false } };
const baselineName = baselineDir
  ? (process.env.BENCH_BASELINE_NAME ?? `the build under ${baselineDir}`)
  : 'this build, OCR search alone';
log(`${all.length} images, ${ab ? `A/B in one order (A: ${baselineName})` : `${orders} shuffled order(s)`}`);
const loadBefore = load1();
const pair = ab ? await runPair(shuffled(all, 1), baseline, SHIPPED) : null;
const before = pair ? pair[0] : null;
const a = pair ? pair[1] : await runOrder(shuffled(all, 1));
const b = orders === 2 && !ab ? await runOrder(shuffled(all, 2)) : a;
const licencesBefore = ab ? await licenceSet(baseline) : null;
const licences = await licenceSet();
const verdicts = await qualitySet();
const byFile = (r: Result[]) => new Map(r.map((x) => [x.file, x.reading]));
const ra = byFile(a.results);
const rb = byFile(b.results);
const strip = (r: DocumentReading | undefined) => JSON.stringify({ ...r, took_ms: 0, profile: undefined });
const orderDiffs = all.filter((f) => strip(ra.get(f)) !== strip(rb.get(f)));

const out: string[] = [];
const say = (s = '') => out.push(s);
say(
  `### ${new Date().toISOString().slice(0, 10)}, ${machine()}${only.length ? `, BENCH_FILES=${only.join(',')}` : ''}`,
);
say();
say('| image | PassportEye | format | check digits | accepted | reasons | document number | names | ms |');
say('|---|---|---|---|---|---|---|---|---|');
let peFull = 0;
let oursValid = 0;
let oursAccepted = 0;
for (const f of testdata) {
  const r = ra.get(f) as DocumentReading;
  const pe = Number(/testdata\/(\d+)_/.exec(f)?.[1] ?? 0);
  if (pe === 100) peFull++;
  if (r.check_digits_valid) oursValid++;
  if (r.accepted && r.check_digits_valid) oursAccepted++;
  say(
    `| ${f.slice(9)} | ${pe} | ${r.mrz?.format ?? '-'} | ${r.check_digits_valid ? 'valid' : 'no'} | ${r.accepted ? 'yes' : 'no'} | ${r.reasons.join(', ') || r.error || ''} | ${r.mrz?.document_number ?? ''} | ${r.mrz ? `${r.mrz.surname} / ${r.mrz.given_names}` : ''} | ${r.took_ms} |`,
  );
}
say();
say(
  `testdata/: ${oursAccepted} of ${testdata.length} accepted with every check digit valid (${oursValid} with every check digit valid before the strict check and second signal); PassportEye: ${peFull} of ${testdata.length} at 100.`,
);
let exact = 0;
for (const f of tests) {
  const r = ra.get(f);
  const ok = JSON.stringify(r?.mrz) === JSON.stringify(SPECIMENS[f]) && r?.accepted === true;
  if (ok) exact++;
  else say(`- ${f}: NOT exact: ${JSON.stringify(r?.mrz)}`);
}
say(`tests/ specimens exact (mrz_test.py fields) and accepted: ${exact} of ${tests.length}.`);
const wrong: string[] = [];
const verified: string[] = [];
for (const f of all) {
  const r = ra.get(f);
  const eye = BY_EYE[f] ?? SPECIMENS[f];
  if (!r?.accepted || !r.mrz) continue;
  if (!eye) {
    say(`- accepted, not verified by eye: ${f}`);
    continue;
  }
  const bad = Object.entries(eye).filter(([k, v]) => (r.mrz as unknown as Record<string, unknown>)[k] !== v);
  if (bad.length) wrong.push(`${f} (${bad.map(([k]) => k).join(', ')})`);
  else verified.push(f);
}
say(`Accepted readings verified by eye: ${verified.length} (${verified.join(', ')}).`);
say(`Accepted readings with a wrong field: ${wrong.length}${wrong.length ? ` — ${wrong.join('; ')}` : ''}.`);
say(
  orders === 1 || ab
    ? `Same output in both orders: not measured (${ab ? 'BENCH_AB=1' : 'BENCH_ORDERS=1'}).`
    : `Same output in both orders: ${orderDiffs.length === 0 ? 'yes' : `NO (${orderDiffs.join(', ')})`} (took_ms aside).`,
);
const times = (orders === 2 && !ab ? [...a.results, ...b.results] : a.results).map((r) => r.reading.took_ms);
say(
  `Time per document (${times.length} reads): p50 ${pct(times, 50)} ms, p99 ${pct(times, 99)} ms; first document after the worker's start (models loading) ${a.first_ms} ms, of it the read itself ${a.results[0]?.reading.took_ms ?? 0} ms; worker RSS (whole process, peak) ${(Math.max(a.rss, b.rss) / 2 ** 20).toFixed(0)} MB; load before ${loadBefore}, after ${load1()}.`,
);
if (before) {
  const tA = before.results.map((r) => r.reading.took_ms);
  const differ = before.results
    .filter((r) => strip(r.reading) !== strip(ra.get(r.file)))
    .map(
      (r) =>
        `${r.file} (${r.reading.accepted ? 'accepted' : 'refused'} → ${ra.get(r.file)?.accepted ? 'accepted' : 'refused'})`,
    );
  const ratio = (p: number) => (pct(times, p) / Math.max(1, pct(tA, p))).toFixed(2);
  const fieldsDiffer = before.results
    .filter((r) => JSON.stringify(r.reading.mrz) !== JSON.stringify(ra.get(r.file)?.mrz))
    .map((r) => r.file);
  say(
    `A/B in one run, same order: A (${baselineName}) p50 ${pct(tA, 50)} ms, p99 ${pct(tA, 99)} ms, first ${before.first_ms} ms; B (this build) p50 ${pct(times, 50)} ms, p99 ${pct(times, 99)} ms, first ${a.first_ms} ms (the read ${a.results[0]?.reading.took_ms} ms, A's ${before.results[0]?.reading.took_ms} ms); B/A p50 ${ratio(50)}, p99 ${ratio(99)}, first ${(a.first_ms / Math.max(1, before.first_ms)).toFixed(2)}. Accepted: A ${before.results.filter((r) => r.reading.accepted).length}, B ${a.results.filter((r) => r.reading.accepted).length}. Readings that differ: ${differ.length ? differ.join('; ') : 'none'}. Fields that differ: ${fieldsDiffer.length ? fieldsDiffer.join(', ') : 'none'}.`,
  );
}
if (profiling) {
  // per stage over this build's reads: how often, the time in all, and the share of the reads' time
  const total = a.results.reduce((t, r) => t + r.reading.took_ms, 0);
  const byStage = new Map<string, { n: number; ms: number }>();
  for (const r of a.results) {
    for (const p of r.reading.profile ?? []) {
      const e = byStage.get(p.stage) ?? { n: 0, ms: 0 };
      e.n++;
      e.ms += p.ms;
      byStage.set(p.stage, e);
    }
  }
  say(
    `Where the time went (${a.results.length} reads, ${total} ms; OCR passes overlap the search stage): ${[
      ...byStage,
    ]
      .sort((x, y) => y[1].ms - x[1].ms)
      .map(([k, e]) => `${k} ×${e.n} ${e.ms} ms (${((100 * e.ms) / Math.max(1, total)).toFixed(0)} %)`)
      .join(', ')}.`,
  );
  const first = a.results[0];
  say(
    `First read (${first?.file}): ${(first?.reading.profile ?? []).map((p) => `${p.stage} ${p.ms}`).join(', ')}.`,
  );
  // per image, slowest first: each stage's time in the order it ran (OCR passes are inside the stage after them)
  say();
  say('| image | ms | stages in order |');
  say('|---|---|---|');
  for (const r of [...a.results].sort((x, y) => y.reading.took_ms - x.reading.took_ms)) {
    const stages = (r.reading.profile ?? []).map((p) => `${p.stage} ${p.ms}`).join(', ');
    say(`| ${r.file} | ${r.reading.took_ms} | ${stages} |`);
  }
}
if (licencesBefore) {
  say(
    `Licence set A/B: A ${licencesBefore.decoded} decoded, ${licencesBefore.exact} exact, p50 ${licencesBefore.p50} ms, p99 ${licencesBefore.p99} ms; B ${licences.decoded} decoded, ${licences.exact} exact, p50 ${licences.p50} ms, p99 ${licences.p99} ms.`,
  );
}
say(
  `Licence set (rendered AAMVA backs, photographed in software): ${licences.decoded} of ${licences.total} decoded, ${licences.exact} with every field exact; p50 ${licences.p50} ms, p99 ${licences.p99} ms.${licences.failed.length ? ` Not read: ${licences.failed.join(', ')}.` : ''}`,
);
say(
  `Capture-quality verdict (blur, glare, MRZ band, barcode, faces; one image at a time on a thread of role quality, its models loaded): ${verdicts.total} images, p50 ${verdicts.p50} ms, p99 ${verdicts.p99} ms (slowest ${verdicts.slowest}); MRZ found on ${verdicts.mrz} of ${verdicts.mrzOf} PassportEye images, barcode found on ${verdicts.barcode} of ${verdicts.barcodeOf} licence backs.`,
);
process.stdout.write(`${out.join('\n')}\n`);
// a subset (BENCH_FILES) is a trial, not the bench's result; an A/B run records B's figures with the ratios B/A
const tBefore = before?.results.map((r) => r.reading.took_ms) ?? [];
const abFigures: Record<string, Figure> = before
  ? {
      ab_baseline_p50_ms: {
        label: 'A/B: the baseline (A), p50, same run',
        unit: 'ms',
        value: pct(tBefore, 50),
      },
      ab_baseline_p99_ms: {
        label: 'A/B: the baseline (A), p99, same run',
        unit: 'ms',
        value: pct(tBefore, 99),
      },
      ab_p50_ratio: {
        label: 'A/B: p50 B ÷ A',
        unit: '',
        value: Number((pct(times, 50) / Math.max(1, pct(tBefore, 50))).toFixed(2)),
      },
      ab_p99_ratio: {
        label: 'A/B: p99 B ÷ A',
        unit: '',
        value: Number((pct(times, 99) / Math.max(1, pct(tBefore, 99))).toFixed(2)),
      },
      ab_first_ratio: {
        label: 'A/B: first document B ÷ A',
        unit: '',
        value: Number((a.first_ms / Math.max(1, before.first_ms)).toFixed(2)),
      },
    }
  : {};
if (only.length === 0)
  recordResult(
    'identity:documents',
    {
      accepted: {
        label: `PassportEye testdata accepted with every check digit valid (of ${testdata.length}; PassportEye ${peFull})`,
        unit: '',
        value: oursAccepted,
      },
      specimens_exact: { label: `tests/ specimens exact (of ${tests.length})`, unit: '', value: exact },
      accepted_wrong_field: { label: 'accepted readings with a wrong field', unit: '', value: wrong.length },
      p50_ms: { label: 'time a document, p50', unit: 'ms', value: pct(times, 50) },
      p99_ms: { label: 'time a document, p99', unit: 'ms', value: pct(times, 99) },
      first_ms: {
        label: "first document after the worker's start (models loading included)",
        unit: 'ms',
        value: a.first_ms,
      },
      first_read_ms: {
        label: 'the first document itself, the models loaded (took_ms)',
        unit: 'ms',
        value: a.results[0]?.reading.took_ms ?? 0,
      },
      licences_decoded: {
        label: `licence backs decoded (of ${licences.total})`,
        unit: '',
        value: licences.decoded,
      },
      licences_exact: {
        label: `licence backs with every field exact (of ${licences.total})`,
        unit: '',
        value: licences.exact,
      },
      licences_p50_ms: { label: 'time a licence back, p50', unit: 'ms', value: licences.p50 },
      quality_p50_ms: { label: 'capture-quality verdict on one image, p50', unit: 'ms', value: verdicts.p50 },
      quality_p99_ms: { label: 'capture-quality verdict on one image, p99', unit: 'ms', value: verdicts.p99 },
      quality_mrz_found: {
        label: `capture-quality verdict: MRZ found (of ${verdicts.mrzOf} PassportEye images)`,
        unit: '',
        value: verdicts.mrz,
      },
      quality_barcode_found: {
        label: `capture-quality verdict: barcode found (of ${verdicts.barcodeOf} licence backs)`,
        unit: '',
        value: verdicts.barcode,
      },
      ...abFigures,
    },
    {
      loadBefore,
      notes:
        [
          ab
            ? `A/B in one order: A ${baselineName}, B this build (the figures are B's; order dependence not measured)`
            : '',
          orderDiffs.length ? `order-dependent output: ${orderDiffs.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; ') || undefined,
    },
  );

/** The licence set's images: backs of licences of several jurisdictions and AAMVA versions, photographed in
 * software (turned, in perspective, blurred, compressed, small, glared), written to `dir`; by file name, the
 * licence each shows. */
async function licenceFiles(dir: string): Promise<Map<string, Licence>> {
  const year = new Date().getUTCFullYear();
  const people: [string, string, number, 'USA' | 'CAN'][] = [
    ['636014', 'CA', 9, 'USA'],
    ['636015', 'TX', 8, 'USA'],
    ['636001', 'NY', 10, 'USA'],
    ['636012', 'ON', 7, 'CAN'],
    ['636010', 'FL', 5, 'USA'],
    ['636028', 'BC', 4, 'CAN'],
  ];
  const shots: Photographing[] = [
    { rotate: 8, jpeg: 70 },
    { perspective: 0.1, rotate: -4, blur: 1, width: 900 },
    { glare: 0.3, jpeg: 50, width: 700 },
  ];
  const expected = new Map<string, Licence>();
  for (const [i, [issuer, jurisdiction, version, country]] of people.entries()) {
    const l: Licence = {
      issuer,
      jurisdiction,
      version,
      country,
      number: `X${String(1000000 + i * 7919)}`,
      family: ['GARCIA', 'NGUYEN', 'OKAFOR', 'TREMBLAY', 'SMITH', 'LEE'][i] as string,
      first: ['MARIA', 'MINH', 'CHIDI', 'JULIE', 'JOHN', 'ANNA'][i] as string,
      birth: `19${70 + i}-0${1 + i}-1${i}`,
      expiry: `${year + 3}-0${1 + i}-1${i}`,
      issued: `${year - 2}-0${1 + i}-1${i}`,
      sex: i % 2 ? 'M' : 'F',
      street: `${100 + i} ELM ST`,
      city: 'TOWN',
      postal: '123450000',
    };
    const back = await licenceBack(l);
    for (const [k, shot] of shots.entries()) {
      const name = `${jurisdiction}-v${version}-${k}.jpg`;
      writeFileSync(path.join(dir, name), await photograph(back, shot));
      expected.set(name, l);
    }
  }
  return expected;
}

/** The licence set (licenceFiles) read as the service reads a back; a reading counts as exact when every AAMVA
 * field the payload carries comes back. */
async function licenceSet(reader: ReaderUnderTest = SHIPPED): Promise<{
  total: number;
  decoded: number;
  exact: number;
  p50: number;
  p99: number;
  failed: string[];
}> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vs-bench-licences-'));
  const expected = await licenceFiles(dir);
  const files = [...expected.keys()];
  const run = await runOrder(files, { reader, dir, side: 'back' });
  rmSync(dir, { recursive: true, force: true });
  let decoded = 0;
  let exact = 0;
  const failed: string[] = [];
  for (const r of run.results) {
    const a = r.reading.barcode?.aamva;
    const l = expected.get(r.file) as Licence;
    if (!a) {
      failed.push(r.file);
      continue;
    }
    decoded++;
    const ok =
      a.document_number === l.number &&
      a.family_name === l.family &&
      a.first_name === l.first &&
      a.birth_date === l.birth &&
      a.expiry_date === l.expiry &&
      a.issue_date === l.issued &&
      a.jurisdiction === l.jurisdiction &&
      a.country === (l.country ?? 'USA');
    if (ok) exact++;
    else failed.push(`${r.file} (fields)`);
  }
  const t = run.results.map((r) => r.reading.took_ms);
  return { total: files.length, decoded, exact, p50: pct(t, 50), p99: pct(t, 99), failed };
}

/** The capture-quality verdict as the journey's capture step asks for it: one image at a time on a thread of role
 * `quality`, over the PassportEye images and the licence backs. Each time is the request's round trip once the
 * thread has loaded its models (a first request waits for them and is not counted). */
async function qualitySet(): Promise<{
  total: number;
  p50: number;
  p99: number;
  slowest: string;
  mrz: number;
  mrzOf: number;
  barcode: number;
  barcodeOf: number;
}> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vs-bench-quality-'));
  // each image is looked at for what its side must show, as the service does: a passport's data page for its MRZ
  // band and portrait, an ID card's single side for its MRZ or barcode and portrait, a licence's back for its data
  const backs = [...(await licenceFiles(dir)).keys()].map((f) => ({
    file: f,
    at: path.join(dir, f),
    look: qualityLook('driving_license', 'back'),
  }));
  const pages = all.map((f) => ({
    file: f,
    at: path.join(DOCS, f),
    look: qualityLook(/_pass/.test(f) ? 'passport' : 'id_card', 'single'),
  }));
  const pool = new Piscina<IdentityTask, IdentityOutput>({
    filename: IDENTITY_WORKER,
    minThreads: 1,
    maxThreads: 1,
    workerData: { role: 'quality' },
  });
  const ask = async (at: string, look: QualityLook) => {
    const out = await pool.run({ kind: 'quality', image: readFileSync(at), look });
    if (out.kind !== 'quality') throw new Error(`a quality task answered with ${out.kind}`);
    return out.quality;
  };
  try {
    const first = pages[0] ?? backs[0];
    if (first) await ask(first.at, first.look);
    const times: { file: string; ms: number }[] = [];
    let mrz = 0;
    let barcode = 0;
    for (const [set, images] of [
      ['pages', pages],
      ['backs', backs],
    ] as const) {
      for (const image of images) {
        const t = performance.now();
        const q = await ask(image.at, image.look);
        times.push({ file: image.file, ms: Math.round(performance.now() - t) });
        if (set === 'pages' && q.mrz_found) mrz++;
        if (set === 'backs' && q.barcode_found) barcode++;
      }
    }
    const ms = times.map((t) => t.ms);
    const slowest = [...times].sort((x, y) => y.ms - x.ms)[0];
    return {
      total: times.length,
      p50: pct(ms, 50),
      p99: pct(ms, 99),
      slowest: slowest ? `${slowest.file} ${slowest.ms} ms` : '-',
      mrz,
      mrzOf: pages.length,
      barcode,
      barcodeOf: backs.length,
    };
  } finally {
    await pool.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
