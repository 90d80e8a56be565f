// Turned views of a real face photo, for the liveness challenge's tests (no video or photo set of people turning
// their heads is shared with this project). How a view is derived, plainly: human's face mesh of the photo (468
// points with depth, in the units human itself uses for its angles) is rotated in 3D about a point behind the face
// and drawn back over the photo, each mesh triangle textured from where it was in the photo; triangles that turn
// away from the camera are not drawn, nearer ones cover farther ones. The moved mesh is seen in perspective, from a
// camera at arm's length (a few face widths away), so that the part of the face that comes nearer grows and the part
// that goes away shrinks, as in a real photo. Where the turned face no longer covers the photo's face, what a camera
// would see there instead is drawn: the hair above the forehead carried down (a nod shows the top of the head), or
// the shaded neck below the chin carried up (a raised chin shows the underside of the jaw); left there, the photo's
// own forehead or chin would read as a second, unturned face outline and pull the measured pose back to frontal.
// Hair, ears and background do not move. It is a synthetic view of a real face, not a photo of a turned head: the
// pose thresholds are set on real photos (bench/identity-poses.ts), these views only drive the challenge through the
// API and the camera video.
import sharp from 'sharp';
import { acquireModels, type LoadedModels, releaseModels } from '../../identity/face/models.js';

/** human's face mesh model reads 192 × 192 crops: its depth values are in those units */
const MESH_INPUT = 192;
/** the head turns about a point this many face widths behind the mesh's mean depth (a neck, roughly) */
const PIVOT_DEPTH = 0.5;
/** the camera is this many face widths in front of the face (a phone at arm's length: ~40 cm from a ~14 cm face) */
const CAMERA_DISTANCE = 3;
/** how much darker the neck under a raised chin is drawn than the neck in the photo (it is in the jaw's shadow) */
const UNDER_JAW_SHADE = 0.6;

type Vec3 = [number, number, number];

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

interface Mesh {
  points: Vec3[];
  triangles: number[];
}

async function decodeRaw(photo: Uint8Array, maxSide: number): Promise<Raw> {
  const { data, info } = await sharp(photo)
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The largest face's mesh in pixels, depth scaled the way human's own angle estimate scales it. */
async function meshOf(models: LoadedModels, img: Raw): Promise<Mesh> {
  const { tf, human } = models;
  if (!human) throw new Error('head-turn needs human (liveness models)');
  const input = tf.tidy(() =>
    tf.cast(tf.expandDims(tf.tensor3d(img.data, [img.height, img.width, 3], 'int32'), 0), 'float32'),
  );
  try {
    const result = await human.detect(input as unknown as Parameters<typeof human.detect>[0]);
    const face = [...result.face].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
    if (!face || face.mesh.length < 468) throw new Error('head-turn: no face mesh on the photo');
    const size = Math.max(face.box[2], face.box[3]) / 1.5;
    const points = face.mesh.map(([x, y, z]) => [x, y, ((z ?? 0) / MESH_INPUT) * size] as Vec3);
    return { points, triangles: human.faceTriangulation };
  } finally {
    input.dispose();
  }
}

/** Each point rotated by yaw (about the vertical axis) then pitch (about the horizontal one), in degrees. */
function rotate(points: Vec3[], yaw: number, pitch: number): Vec3[] {
  const n = points.length;
  const mean = (k: 0 | 1 | 2) => points.reduce((s, p) => s + p[k], 0) / n;
  const xs = points.map((p) => p[0]);
  const width = Math.max(...xs) - Math.min(...xs);
  const c: Vec3 = [mean(0), mean(1), mean(2) + PIVOT_DEPTH * width];
  const [sy, cy] = [Math.sin((yaw * Math.PI) / 180), Math.cos((yaw * Math.PI) / 180)];
  const [sp, cp] = [Math.sin((pitch * Math.PI) / 180), Math.cos((pitch * Math.PI) / 180)];
  return points.map(([x0, y0, z0]) => {
    const [x, y, z] = [x0 - c[0], y0 - c[1], z0 - c[2]];
    const x1 = x * cy + z * sy;
    const z1 = -x * sy + z * cy;
    const y2 = y * cp - z1 * sp;
    const z2 = y * sp + z1 * cp;
    return [x1 + c[0], y2 + c[1], z2 + c[2]];
  });
}

/** `moved` as a camera CAMERA_DISTANCE face widths in front of the face sees it: each point scaled about the face's
 *  centre by how much nearer or farther it is than the centre (depth grows away from the camera). The photo itself
 *  is taken as the view at the centre's depth, so an unturned mesh projects onto itself. */
function project(moved: Vec3[], width: number): Vec3[] {
  const n = moved.length;
  const mean = (k: 0 | 1 | 2) => moved.reduce((s, p) => s + p[k], 0) / n;
  const [cx, cy, cz] = [mean(0), mean(1), mean(2)];
  const distance = CAMERA_DISTANCE * width;
  return moved.map(([x, y, z]) => {
    const k = distance / (distance + (z - cz));
    return [cx + (x - cx) * k, cy + (y - cy) * k, z];
  });
}

/** Marks in `mask` (one byte a pixel) the pixels inside the mesh's triangles at `points`. */
function fillMask(
  mask: Uint8Array,
  width: number,
  height: number,
  points: Vec3[],
  triangles: number[],
): void {
  for (let t = 0; t + 2 < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t], triangles[t + 1], triangles[t + 2]].map(
      (k) => points[k as number] as Vec3,
    ) as [Vec3, Vec3, Vec3];
    const total = area(a, b, c);
    if (Math.abs(total) < 1e-6) continue;
    const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0], c[0])));
    const x1 = Math.min(width - 1, Math.ceil(Math.max(a[0], b[0], c[0])));
    const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1], c[1])));
    const y1 = Math.min(height - 1, Math.ceil(Math.max(a[1], b[1], c[1])));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const p: Vec3 = [x + 0.5, y + 0.5, 0];
        const wa = area(b, c, p) / total;
        const wb = area(c, a, p) / total;
        if (wa >= 0 && wb >= 0 && 1 - wa - wb >= 0) mask[y * width + x] = 1;
      }
    }
  }
}

/**
 * Paints over the photo's face where the turned face will not cover it, column by column, with what lies beyond the
 * face in the direction it moved away from: for a nod down (pitch > 0) the pixel just above the face (hair), for a
 * raised chin the pixel just below it (neck, shaded). Turns left or right leave the cheeks' edges bare the same
 * way; they are filled from above too, a little hair being what shows beside a turned temple.
 */
function coverRevealed(img: Raw, out: Buffer, original: Uint8Array, turned: Uint8Array, pitch: number): void {
  const { width, height } = img;
  for (let x = 0; x < width; x++) {
    let top = -1;
    let bottom = -1;
    for (let y = 0; y < height; y++) {
      if (!original[y * width + x]) continue;
      if (top < 0) top = y;
      bottom = y;
    }
    if (top < 0) continue;
    const fromBelow = pitch < 0;
    const sy = fromBelow ? Math.min(height - 1, bottom + 2) : Math.max(0, top - 2);
    const shade = fromBelow ? UNDER_JAW_SHADE : 1;
    const src = (sy * width + x) * 3;
    for (let y = top; y <= bottom; y++) {
      const i = y * width + x;
      if (!original[i] || turned[i]) continue;
      for (let ch = 0; ch < 3; ch++) out[i * 3 + ch] = Math.round((img.data[src + ch] ?? 0) * shade);
    }
  }
}

const area = (a: Vec3, b: Vec3, c: Vec3) => (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);

/** Draws triangle `dst` into `out`, sampling the photo at the same barycentric point of `src`. */
function drawTriangle(img: Raw, out: Buffer, src: Vec3[], dst: Vec3[]): void {
  const [a, b, c] = dst as [Vec3, Vec3, Vec3];
  const total = area(a, b, c);
  if (Math.abs(total) < 1e-6) return;
  const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0], c[0])));
  const x1 = Math.min(img.width - 1, Math.ceil(Math.max(a[0], b[0], c[0])));
  const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1], c[1])));
  const y1 = Math.min(img.height - 1, Math.ceil(Math.max(a[1], b[1], c[1])));
  const [sa, sb, sc] = src as [Vec3, Vec3, Vec3];
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const p: Vec3 = [x + 0.5, y + 0.5, 0];
      const wa = area(b, c, p) / total;
      const wb = area(c, a, p) / total;
      const wc = 1 - wa - wb;
      if (wa < 0 || wb < 0 || wc < 0) continue;
      const sx = Math.round(wa * sa[0] + wb * sb[0] + wc * sc[0]);
      const sy = Math.round(wa * sa[1] + wb * sb[1] + wc * sc[1]);
      if (sx < 0 || sy < 0 || sx >= img.width || sy >= img.height) continue;
      img.data.copy(out, (y * img.width + x) * 3, (sy * img.width + sx) * 3, (sy * img.width + sx) * 3 + 3);
    }
  }
}

/** The photo with its face turned by `yaw` and `pitch` in degrees, signed as identity/face/pose.ts measures them
 *  (yaw > 0: towards the image's left, the person's own right; pitch > 0: chin down); JPEG. */
export async function turnedView(photo: Uint8Array, turn: { yaw: number; pitch: number }): Promise<Buffer> {
  const models = await acquireModels(true);
  try {
    const img = await decodeRaw(photo, 1200);
    const mesh = await meshOf(models, img);
    const xs = mesh.points.map((p) => p[0]);
    const moved = project(rotate(mesh.points, turn.yaw, turn.pitch), Math.max(...xs) - Math.min(...xs));
    const out = Buffer.from(img.data);
    const original = new Uint8Array(img.width * img.height);
    const turned = new Uint8Array(img.width * img.height);
    fillMask(original, img.width, img.height, mesh.points, mesh.triangles);
    fillMask(turned, img.width, img.height, moved, mesh.triangles);
    coverRevealed(img, out, original, turned, turn.pitch);
    const faces: { i: number[]; depth: number }[] = [];
    for (let t = 0; t + 2 < mesh.triangles.length; t += 3) {
      const i = [mesh.triangles[t], mesh.triangles[t + 1], mesh.triangles[t + 2]] as number[];
      const [p, q, r] = i.map((k) => moved[k] as Vec3) as [Vec3, Vec3, Vec3];
      const [o, u, v] = i.map((k) => mesh.points[k] as Vec3) as [Vec3, Vec3, Vec3];
      // a triangle whose winding flips has turned away from the camera
      if (Math.sign(area(p, q, r)) !== Math.sign(area(o, u, v))) continue;
      faces.push({ i, depth: (p[2] + q[2] + r[2]) / 3 });
    }
    // human's depth grows away from the camera: draw the far triangles first
    faces.sort((a, b) => b.depth - a.depth);
    for (const f of faces) {
      drawTriangle(
        img,
        out,
        f.i.map((k) => mesh.points[k] as Vec3),
        f.i.map((k) => moved[k] as Vec3),
      );
    }
    return sharp(out, { raw: { width: img.width, height: img.height, channels: 3 } })
      .jpeg({ quality: 92 })
      .toBuffer();
  } finally {
    await releaseModels();
  }
}
