// Head-pose measurement for the selfie liveness challenge (identity/face/pose.ts): human's face-mesh yaw and pitch
// on every face of ../shared/data/faces/deepface, the faces seen turned (labelled by eye below) and their mirror
// images, and how far apart two frontal photos of one person are in pitch. The thresholds in POSE_THRESHOLDS come
// from these figures. Prints a markdown report and writes its headline figures to bench/results/ (bench/results.ts).
// Run: npm run bench:identity:poses.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import {
  createFaceAnalyzer,
  type DetectedFace,
  FACE_MATCH_THRESHOLD,
  type FaceAnalyzer,
  faceSimilarity,
} from '../identity/face/index.js';
import { type ChallengePose, POSE_THRESHOLDS, poseShown } from '../identity/face/pose.js';
import { machine, SHARED_DATA } from './harness.js';
import { type Figure, load1, recordResult } from './results.js';

const FACES = path.join(SHARED_DATA, 'faces', 'deepface');
if (!existsSync(FACES)) {
  process.stderr.write(`bench:identity:poses needs ../shared/data/faces/deepface (not found at ${FACES})\n`);
  process.exit(2);
}

/** Faces turned away from the camera, by file and face index (faces in the order identity/face returns them),
 *  labelled by looking at them: which way the person turned, in their own terms. Every other face of a photo with
 *  one face is a frontal portrait. */
const TURNED: Record<string, 'left' | 'right'> = {
  'couple.jpg#0': 'left',
  'couple.jpg#1': 'left',
  'selfie-many-people.jpg#0': 'left',
  'selfie-many-people.jpg#2': 'right',
  'img61.jpg#0': 'right',
};
const OPPOSITE = { left: 'right', right: 'left' } as const;

interface Measured {
  id: string;
  face: DetectedFace;
  faces_in_photo: number;
}

const out: string[] = [];
const say = (s = '') => out.push(s);
const f1 = (n: number) => n.toFixed(1);
const range = (xs: number[]) => `${f1(Math.min(...xs))} … ${f1(Math.max(...xs))}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function measureAll(analyzer: FaceAnalyzer): Promise<{ faces: Measured[]; ms: number[] }> {
  const faces: Measured[] = [];
  const ms: number[] = [];
  for (const file of readdirSync(FACES)
    .filter((f) => f.endsWith('.jpg'))
    .sort()) {
    const r = await analyzer.analyze(readFileSync(path.join(FACES, file)));
    ms.push(r.took_ms);
    for (const [i, face] of r.faces.entries()) {
      faces.push({ id: `${file}#${i}`, face, faces_in_photo: r.faces.length });
    }
  }
  return { faces, ms };
}

/** The face's pose in the mirror image of its photo (the photo flipped left to right). */
async function mirrored(analyzer: FaceAnalyzer, m: Measured): Promise<DetectedFace | undefined> {
  const file = m.id.slice(0, m.id.indexOf('#'));
  const flipped = await sharp(readFileSync(path.join(FACES, file)))
    .flop()
    .jpeg({ quality: 95 })
    .toBuffer();
  const r = await analyzer.analyze(flipped);
  // the same face is the one whose descriptor is closest to the unflipped one's
  return [...r.faces].sort(
    (a, b) => faceSimilarity(b.embedding, m.face.embedding) - faceSimilarity(a.embedding, m.face.embedding),
  )[0];
}

/** |pitch difference| of every pair of frontal portraits showing one person (face match at the threshold). */
function samePersonPitchDeltas(frontal: Measured[]): number[] {
  const deltas: number[] = [];
  for (let i = 0; i < frontal.length; i++) {
    for (let j = i + 1; j < frontal.length; j++) {
      const a = frontal[i]!.face;
      const b = frontal[j]!.face;
      if (!a.pose || !b.pose || faceSimilarity(a.embedding, b.embedding) < FACE_MATCH_THRESHOLD) continue;
      deltas.push(Math.abs(a.pose.pitch - b.pose.pitch));
    }
  }
  return deltas.sort((x, y) => x - y);
}

function reportFrontal(frontal: Measured[]): void {
  const yaws = frontal.map((m) => m.face.pose!.yaw);
  const pitches = frontal.map((m) => m.face.pose!.pitch);
  const front = frontal.filter((m) => poseShown('front', m.face.pose!, null)).length;
  say(
    `| frontal portraits | ${frontal.length} | ${range(yaws)} | ${range(pitches)} (median ${f1(median(pitches))}) |`,
  );
  say();
  say(`Read as \`front\` by poseShown: ${front} of ${frontal.length}.`);
}

/** The turned faces and their mirror images: the table, and how many of them read as the turn they show. */
async function reportTurned(
  analyzer: FaceAnalyzer,
  faces: Measured[],
): Promise<{ read: number; of: number }> {
  let read = 0;
  say();
  say('| turned face | by eye | yaw | pitch | read as asked | mirror: yaw | mirror read as the opposite |');
  say('|---|---|---|---|---|---|---|');
  for (const [id, side] of Object.entries(TURNED)) {
    const m = faces.find((f) => f.id === id);
    if (!m?.face.pose) {
      say(`| ${id} | ${side} | not found | | | | |`);
      continue;
    }
    const flipped = await mirrored(analyzer, m);
    const fp = flipped?.pose;
    const shown = (asked: ChallengePose, p: typeof fp) => (p && poseShown(asked, p, null) ? 'yes' : 'no');
    read += Number(shown(side, m.face.pose) === 'yes') + Number(shown(OPPOSITE[side], fp) === 'yes');
    say(
      `| ${id} | ${side} | ${f1(m.face.pose.yaw)} | ${f1(m.face.pose.pitch)} | ${shown(side, m.face.pose)} | ` +
        `${fp ? f1(fp.yaw) : '–'} | ${shown(OPPOSITE[side], fp)} |`,
    );
  }
  return { read, of: 2 * Object.keys(TURNED).length };
}

async function main(): Promise<void> {
  const analyzer = await createFaceAnalyzer();
  const loadBefore = load1();
  const { faces, ms } = await measureAll(analyzer);
  const frontal = faces.filter((m) => m.faces_in_photo === 1 && !TURNED[m.id] && m.face.pose);
  say(`### ${new Date().toISOString().slice(0, 10)}, ${machine()}, load ${loadBefore}`);
  say();
  say(`Thresholds (identity/face/pose.ts): ${JSON.stringify(POSE_THRESHOLDS)}.`);
  say();
  say('| faces | n | yaw (°) | pitch (°) |');
  say('|---|---|---|---|');
  reportFrontal(frontal);
  const turned = await reportTurned(analyzer, faces);
  const deltas = samePersonPitchDeltas(frontal);
  const p90 = deltas[Math.floor(0.9 * deltas.length)] ?? Number.NaN;
  say();
  say(
    `Pitch difference between two frontal portraits of one person (${deltas.length} pairs): median ` +
      `${f1(median(deltas))}°, p90 ${f1(p90)}°, max ${f1(deltas.at(-1) ?? Number.NaN)}°.`,
  );
  say(`Time per photo (face-api + human, one thread): median ${median(ms)} ms over ${ms.length} photos.`);
  await analyzer.close();
  process.stdout.write(`${out.join('\n')}\n`);
  recordResult('identity:poses', figures(frontal, turned, p90, median(ms)), { loadBefore });
}

function figures(frontal: Measured[], turned: { read: number; of: number }, p90: number, ms: number) {
  const f = (label: string, unit: string, value: number): Figure => ({ label, unit, value });
  return {
    frontal_read_front: f(
      `frontal portraits read as front (of ${frontal.length})`,
      '',
      frontal.filter((m) => poseShown('front', m.face.pose!, null)).length,
    ),
    frontal_max_abs_yaw: f(
      'frontal portraits, largest absolute yaw',
      '°',
      Math.max(...frontal.map((m) => Math.abs(m.face.pose!.yaw))),
    ),
    turned_read_as_asked: f(
      `turned faces and their mirrors read as their turn (of ${turned.of})`,
      '',
      turned.read,
    ),
    frontal_pitch_p90_delta: f('pitch difference of two frontal portraits of one person, p90', '°', p90),
    per_photo_p50_ms: f('time a photo, p50', 'ms', ms),
  };
}

await main();
