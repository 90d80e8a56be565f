// Face verification benchmark for identity/face (the selfie check's models and threshold): deepface's two labelled
// pair lists, compared with the distances deepface's own models gave (pairs-pivot.csv), time per face, and the
// advisory liveness scores on these genuine photos and on the printed portraits of the specimen documents.
// Writes nothing; prints a markdown report. Run: npm run bench:identity:faces (needs ../shared/data).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import {
  createFaceAnalyzer,
  DEFAULT_MAX_SIDE,
  FACE_MATCH_THRESHOLD,
  type FaceAnalysis,
  faceSimilarity,
  primaryFace,
  wasmHeapBytes,
} from '../identity/face/index.js';
import { parseCsvTable } from '../ingest/csv.js';
import { machine, SHARED_DATA } from './harness.js';
import { type Figure, load1, recordResult } from './results.js';

const FACES = path.join(SHARED_DATA, 'faces', 'deepface');
const DOCS = path.join(SHARED_DATA, 'documents', 'passporteye');
if (!existsSync(path.join(FACES, 'pairs.csv'))) {
  process.stderr.write(`bench:identity:faces needs ../shared/data/faces/deepface (not found at ${FACES})\n`);
  process.exit(2);
}
const MAX_SIDE = Number(process.env.BENCH_FACE_MAX_SIDE ?? DEFAULT_MAX_SIDE);
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);
const out: string[] = [];
const say = (s = '') => out.push(s);
const loadBefore = load1();
/** The headline figures written to bench/results/ (keys as in TARGETS['identity:faces']). */
const figures: Record<string, Figure> = {};

// ---- metrics ------------------------------------------------------------------------------------------

interface Scored {
  same: boolean;
  /** higher = more alike */
  s: number;
}

/** ROC AUC = P(score of a random match > score of a random non-match), ties count half. */
function auc(points: Scored[]): number {
  const pos = points.filter((p) => p.same).map((p) => p.s);
  const neg = points.filter((p) => !p.same).map((p) => p.s);
  let sum = 0;
  for (const p of pos) for (const n of neg) sum += p > n ? 1 : p === n ? 0.5 : 0;
  return sum / (pos.length * neg.length);
}

function accuracyAt(points: Scored[], t: number): number {
  return points.filter((p) => p.s >= t === p.same).length / points.length;
}

/** The lowest threshold whose false-match rate is ≤ `fmr`, and the true-match rate there. */
function tmrAtFmr(points: Scored[], fmr: number): { tmr: number; threshold: number } {
  const neg = points
    .filter((p) => !p.same)
    .map((p) => p.s)
    .sort((a, b) => b - a);
  const allowed = Math.floor(fmr * neg.length);
  // scores strictly above the (allowed+1)-th highest non-match score are accepted
  const cut = neg[allowed] ?? Number.NEGATIVE_INFINITY;
  const pos = points.filter((p) => p.same);
  return { tmr: pos.filter((p) => p.s > cut).length / pos.length, threshold: cut };
}

/** The best accuracy any threshold reaches (the oracle; an upper bound, not a deployable figure). */
function bestAccuracy(points: Scored[]): number {
  let best = 0;
  for (const t of new Set(points.map((p) => p.s))) best = Math.max(best, accuracyAt(points, t));
  return best;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] as number;
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

// ---- analyse every photo once -------------------------------------------------------------------------

const t0 = performance.now();
const analyzer = await createFaceAnalyzer({ maxSide: MAX_SIDE });
const loadMs = Math.round(performance.now() - t0);
log(`models ready in ${loadMs} ms`);

const photos = readdirSync(FACES)
  .filter((f) => /\.jpe?g$/i.test(f))
  .sort();
const analyses = new Map<string, FaceAnalysis>();
for (const f of photos) {
  const a = await analyzer.analyze(readFileSync(path.join(FACES, f)));
  analyses.set(f, a);
  log(`${f}: ${a.faces.length} face(s) ${a.took_ms} ms${a.error ? ` error ${a.error}` : ''}`);
}
const docImages: string[] = [];
for (const sub of ['tests', 'testdata']) {
  const dir = path.join(DOCS, sub);
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir).sort()) if (/\.(jpe?g|png)$/i.test(f)) docImages.push(path.join(dir, f));
}
const docAnalyses = new Map<string, FaceAnalysis>();
for (const f of docImages) {
  const a = await analyzer.analyze(readFileSync(f));
  docAnalyses.set(path.relative(DOCS, f), a);
  log(`${path.relative(DOCS, f)}: ${a.faces.length} face(s) ${a.took_ms} ms`);
}
// tilted and sideways captures: every first image of pairs.csv turned by the pixels (no EXIF tag), compared with
// the second image as it is
const ROTATIONS = [30, 90, 180];
const firstImages = [
  ...new Set(parseCsvTable(readFileSync(path.join(FACES, 'pairs.csv'), 'utf8')).map((r) => r.file_x ?? '')),
];
const rotated = new Map<string, number[] | null>();
for (const angle of ROTATIONS) {
  for (const f of firstImages) {
    const turned = await sharp(readFileSync(path.join(FACES, f)))
      .rotate()
      .rotate(angle, { background: '#808080' })
      .jpeg({ quality: 92 })
      .toBuffer();
    const a = await analyzer.analyze(turned);
    rotated.set(`${angle}:${f}`, primaryFace(a)?.embedding ?? null);
  }
  log(`rotated ${angle}°: ${firstImages.length} images`);
}
const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
const wasmMb = Math.round(wasmHeapBytes() / 2 ** 20);
await analyzer.close();

// ---- face verification on the pair lists --------------------------------------------------------------

const embeddingOf = (f: string) => {
  const a = analyses.get(f);
  return a ? (primaryFace(a)?.embedding ?? null) : null;
};

interface PairList {
  file: string;
  rows: Record<string, string>[];
  points: Scored[];
  noFace: number;
}
const lists: PairList[] = [];
for (const file of ['pairs.csv', 'pairs-pivot.csv']) {
  const rows = parseCsvTable(readFileSync(path.join(FACES, file), 'utf8'));
  let noFace = 0;
  const points = rows.map((r) => {
    const a = embeddingOf(r.file_x ?? '');
    const b = embeddingOf(r.file_y ?? '');
    if (!a || !b) noFace++;
    // a pair with no face on a side can only be rejected: it scores 0
    return { same: r.Decision === 'Yes', s: a && b ? faceSimilarity(a, b) : 0 };
  });
  lists.push({ file, rows, points, noFace });
}

say(`### ${new Date().toISOString().slice(0, 10)}, ${machine()}`);
say();
say(
  `Models: @vladmandic/face-api 1.7 (SSD MobileNet v1 detector, 68-point landmarks, 128-d ResNet descriptor) for ` +
    `detection and matching; @vladmandic/human 3.3 anti-spoof + liveness models; tfjs 4.22 wasm backend (SIMD, one ` +
    `thread). Images scaled to ≤ ${MAX_SIDE} px on the longer side. Score = 1 − Euclidean distance of the ` +
    `descriptors; FACE_MATCH_THRESHOLD = ${FACE_MATCH_THRESHOLD}.`,
);
say();
say(
  '| list | pairs (same / different) | no face | ROC AUC | accuracy at threshold | best accuracy (oracle) | TMR at FMR ≤ 1 % | lowest same | highest different |',
);
say('|---|---|---|---|---|---|---|---|---|');
for (const l of lists) {
  const pos = l.points.filter((p) => p.same).map((p) => p.s);
  const neg = l.points.filter((p) => !p.same).map((p) => p.s);
  const t = tmrAtFmr(l.points, 0.01);
  say(
    `| ${l.file} | ${l.points.length} (${pos.length} / ${neg.length}) | ${l.noFace} | ${f3(auc(l.points))} | ` +
      `${pct(accuracyAt(l.points, FACE_MATCH_THRESHOLD))} | ${pct(bestAccuracy(l.points))} | ${pct(t.tmr)} | ` +
      `${f3(Math.min(...pos))} | ${f3(Math.max(...neg))} |`,
  );
  const key = l.file === 'pairs.csv' ? 'pairs' : 'pairs_pivot';
  figures[`auc_${key}`] = { label: `ROC AUC, ${l.file}`, unit: '', value: Number(auc(l.points).toFixed(3)) };
}
const pooled = lists.flatMap((l) => l.points);
const minSame = Math.min(...pooled.filter((p) => p.same).map((p) => p.s));
const maxDiff = Math.max(...pooled.filter((p) => !p.same).map((p) => p.s));
say();
say(
  `Both lists pooled (${pooled.length} pairs): AUC ${f3(auc(pooled))}, accuracy at ${FACE_MATCH_THRESHOLD} ` +
    `${pct(accuracyAt(pooled, FACE_MATCH_THRESHOLD))}; same-person pairs score ≥ ${f3(minSame)}, different ` +
    `people ≤ ${f3(maxDiff)} (gap midpoint ${f3((minSame + maxDiff) / 2)}).`,
);

const plain = lists.find((l) => l.file === 'pairs.csv');
if (plain) {
  say();
  say(
    'Turned captures: the first image of every pairs.csv pair rotated by its pixels (no EXIF tag), against the ' +
      "second as it is. Faces rolled up to ±90° are described upright (human's mesh gives the roll); upside-down " +
      'faces are not recognised as such:',
  );
  say();
  say('| rotation | no face | ROC AUC | accuracy at threshold | TMR at threshold | FMR at threshold |');
  say('|---|---|---|---|---|---|');
  for (const angle of [0, ...ROTATIONS]) {
    let noFace = 0;
    const pts = plain.rows.map((r) => {
      const a = angle === 0 ? embeddingOf(r.file_x ?? '') : (rotated.get(`${angle}:${r.file_x}`) ?? null);
      const b = embeddingOf(r.file_y ?? '');
      if (!a || !b) noFace++;
      return { same: r.Decision === 'Yes', s: a && b ? faceSimilarity(a, b) : 0 };
    });
    const pos = pts.filter((p) => p.same);
    const neg = pts.filter((p) => !p.same);
    say(
      `| ${angle}° | ${noFace} | ${f3(auc(pts))} | ${pct(accuracyAt(pts, FACE_MATCH_THRESHOLD))} | ` +
        `${pct(pos.filter((p) => p.s >= FACE_MATCH_THRESHOLD).length / pos.length)} | ` +
        `${pct(neg.filter((p) => p.s >= FACE_MATCH_THRESHOLD).length / neg.length)} |`,
    );
  }
}

// ---- deepface's own models on pairs-pivot.csv ----------------------------------------------------------

const pivot = lists.find((l) => l.file === 'pairs-pivot.csv');
if (pivot) {
  say();
  say(
    "pairs-pivot.csv against the distances deepface's own models gave the same pairs (lower distance = same):",
  );
  say();
  say('| model / metric | ROC AUC | best accuracy (oracle) | TMR at FMR ≤ 1 % |');
  say('|---|---|---|---|');
  say(
    `| **veriscreen: face-api descriptor, 1 − euclidean** | ${f3(auc(pivot.points))} | ${pct(bestAccuracy(pivot.points))} | ` +
      `${pct(tmrAtFmr(pivot.points, 0.01).tmr)} |`,
  );
  const columns = Object.keys(pivot.rows[0] ?? {}).filter((c) => /_(cosine|euclidean|euclidean_l2)$/.test(c));
  for (const c of columns) {
    const pts = pivot.rows
      .filter((r) => (r[c] ?? '') !== '' && Number.isFinite(Number(r[c])))
      .map((r) => ({ same: r.Decision === 'Yes', s: -Number(r[c]) }));
    if (pts.length === 0) continue;
    say(`| deepface ${c} | ${f3(auc(pts))} | ${pct(bestAccuracy(pts))} | ${pct(tmrAtFmr(pts, 0.01).tmr)} |`);
  }
}

// ---- time per face ------------------------------------------------------------------------------------

const valid = [...analyses.values()].filter((a) => !a.error);
const times = valid.map((a) => a.took_ms).sort((a, b) => a - b);
const faceCount = valid.reduce((n, a) => n + a.faces.length, 0);
const totalMs = times.reduce((a, b) => a + b, 0);
say();
say(
  `Time: ${valid.length} photos (${faceCount} faces, ${photos.length - valid.length} unreadable), per image p50 ` +
    `${quantile(times, 0.5)} ms, p99 ${quantile(times, 0.99)} ms, max ${times.at(-1)} ms; ${Math.round(totalMs / Math.max(1, faceCount))} ms ` +
    `per face (decode + detection + landmarks + descriptor + anti-spoof/liveness). Model load ${loadMs} ms. ` +
    `Process RSS after all images ${rssMb} MB, of which the tfjs wasm heap ${wasmMb} MB (it grows to the largest ` +
    `analysis and stays; one per thread). Load average during the run ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} on ${cpus().length} cores.`,
);
figures.per_image_p50_ms = { label: 'time an image, p50', unit: 'ms', value: quantile(times, 0.5) };
const multi = [...analyses].filter(([f]) => /couple|many/.test(f)).map(([f, a]) => `${f}: ${a.faces.length}`);
say(`Group photos: ${multi.join(', ')}.`);

// ---- liveness distribution ----------------------------------------------------------------------------

function distribution(values: number[]): string {
  const v = [...values].sort((a, b) => a - b);
  if (!v.length) return '— | — | — | — | — | — | —';
  const below = v.filter((x) => x < 0.5).length;
  return (
    `${v.length} | ${f3(v[0] as number)} | ${f3(quantile(v, 0.1))} | ${f3(quantile(v, 0.5))} | ` +
    `${f3(quantile(v, 0.9))} | ${f3(v.at(-1) as number)} | ${below} (${pct(below / v.length)})`
  );
}
const realFaces = valid.flatMap((a) => a.faces);
const docFaces = [...docAnalyses.values()].flatMap((a) => (primaryFace(a) ? [primaryFace(a)!] : []));
const scores = (faces: typeof realFaces, k: 'liveness' | 'antispoof') =>
  faces.map((f) => f[k]).filter((x): x is number => typeof x === 'number');
say();
say(
  "Advisory liveness (human's liveness model = `liveness`, its anti-spoof model = `antispoof`) on the " +
    "genuine photos of deepface's set, and on the portraits printed on the PassportEye specimen documents (a " +
    'photograph of a printed photograph: what a presentation attack looks like to a camera):',
);
say();
say('| faces | model | n | min | p10 | median | p90 | max | below 0.5 |');
say('|---|---|---|---|---|---|---|---|---|');
say(`| genuine photos (deepface) | liveness | ${distribution(scores(realFaces, 'liveness'))} |`);
say(`| genuine photos (deepface) | anti-spoof | ${distribution(scores(realFaces, 'antispoof'))} |`);
say(`| document portraits (PassportEye) | liveness | ${distribution(scores(docFaces, 'liveness'))} |`);
say(`| document portraits (PassportEye) | anti-spoof | ${distribution(scores(docFaces, 'antispoof'))} |`);
const docsWithFace = [...docAnalyses.values()].filter((a) => a.faces.length > 0).length;
const byHuman = [...analyses.values(), ...docAnalyses.values()].flatMap((a) =>
  a.faces.filter((f) => f.detector === 'human'),
).length;
say();
say(
  `Document images with a face found: ${docsWithFace} of ${docAnalyses.size}; none found on: ` +
    `${[...docAnalyses]
      .filter(([, a]) => a.faces.length === 0)
      .map(([f]) => f)
      .join(', ')}. Faces found only by human's detector (face-api's SSD saw nothing there), photos and ` +
    `documents together: ${byHuman}.`,
);
const separation = (k: 'liveness' | 'antispoof') =>
  auc([
    ...scores(realFaces, k).map((s) => ({ same: true, s })),
    ...scores(docFaces, k).map((s) => ({ same: false, s })),
  ]);
if (docFaces.length) {
  say(
    `AUC genuine photo vs printed portrait (0.5 = chance): liveness ${f3(separation('liveness'))}, anti-spoof ` +
      `${f3(separation('antispoof'))}.`,
  );
}

process.stdout.write(`${out.join('\n')}\n`);
const pooledTmr = tmrAtFmr(pooled, 0.01).tmr;
figures.tmr_at_fmr1_pct = {
  label: 'true matches at ≤ 1 % false matches, both lists',
  unit: '%',
  value: Number((100 * pooledTmr).toFixed(1)),
};
recordResult('identity:faces', figures, { loadBefore });
