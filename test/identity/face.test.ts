// identity/face on real photos (deepface's test set) and a real document: detection, embedding, the match threshold,
// images without a face, corrupt files, and loading inside a worker_thread with bounded memory.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFaceAnalyzer,
  FACE_MATCH_THRESHOLD,
  type FaceAnalyzer,
  faceSimilarity,
  primaryFace,
} from '../../identity/face/index.js';
import { HAS_SHARED_DATA, REPO_ROOT, sharedPath } from '../helpers/shared-data.js';

const face = (name: string) => readFileSync(sharedPath('faces', 'deepface', name));

describe('faceSimilarity', () => {
  it('is 1 for identical descriptors, symmetric, and 0 for descriptors of different models', () => {
    const a = Array.from({ length: 128 }, (_, i) => Math.sin(i) / 11);
    const b = Array.from({ length: 128 }, (_, i) => Math.cos(i) / 11);
    expect(faceSimilarity(a, a)).toBe(1);
    expect(faceSimilarity(a, b)).toBe(faceSimilarity(b, a));
    expect(faceSimilarity(a, b)).toBeGreaterThanOrEqual(0);
    expect(faceSimilarity(a, b)).toBeLessThan(1);
    expect(faceSimilarity(a, a.slice(0, 64))).toBe(0);
    expect(faceSimilarity([], [])).toBe(0);
  });
});

describe.skipIf(!HAS_SHARED_DATA)('createFaceAnalyzer on real photos (../shared/data/faces/deepface)', () => {
  let analyzer: FaceAnalyzer;
  beforeAll(async () => {
    analyzer = await createFaceAnalyzer();
  });
  afterAll(async () => {
    await analyzer?.close();
  });

  it('scores a same-person pair above the threshold and a different-person pair below it', async () => {
    // pairs.csv: img20/img21 "Yes"; img20/img40 are different people
    const [a, b, c] = await Promise.all(
      ['img20.jpg', 'img21.jpg', 'img40.jpg'].map((f) => analyzer.analyze(face(f))),
    );
    for (const r of [a, b, c]) {
      expect(r?.error).toBeUndefined();
      expect(r?.faces).toHaveLength(1);
    }
    const fa = primaryFace(a!)!;
    const fb = primaryFace(b!)!;
    const fc = primaryFace(c!)!;
    expect(fa.embedding).toHaveLength(128);
    expect(faceSimilarity(fa.embedding, fb.embedding)).toBeGreaterThanOrEqual(FACE_MATCH_THRESHOLD);
    expect(faceSimilarity(fa.embedding, fc.embedding)).toBeLessThan(FACE_MATCH_THRESHOLD);
    // a head turned sideways (the pixels rotated, no EXIF tag) still matches: the face is described upright
    const sideways = await analyzer.analyze(await sharp(face('img20.jpg')).rotate(90).jpeg().toBuffer());
    expect(sideways.faces).toHaveLength(1);
    expect(faceSimilarity(sideways.faces[0]!.embedding, fb.embedding)).toBeGreaterThanOrEqual(
      FACE_MATCH_THRESHOLD,
    );
    // img40 is 3061×4600: boxes come back in the original image's pixels although detection ran scaled down
    expect(c).toMatchObject({ width: 3061, height: 4600 });
    expect(fc.box.x + fc.box.width).toBeGreaterThan(1600);
  });

  it('finds both faces of couple.jpg, each with an embedding and an advisory liveness score', async () => {
    const r = await analyzer.analyze(face('couple.jpg'));
    expect(r.error).toBeUndefined();
    expect(r.faces.length).toBeGreaterThanOrEqual(2);
    for (const f of r.faces) {
      expect(f.embedding).toHaveLength(128);
      expect(f.score).toBeGreaterThan(0.5);
      expect(f.liveness).toBeGreaterThanOrEqual(0);
      expect(f.liveness).toBeLessThanOrEqual(1);
    }
    // two people: their faces do not match each other
    expect(faceSimilarity(r.faces[0]!.embedding, r.faces[1]!.embedding)).toBeLessThan(FACE_MATCH_THRESHOLD);
  });

  it('finds no face in a real document crop without one (the MRZ band) nor in a synthetic image', async () => {
    const doc = sharedPath('documents', 'passporteye', 'tests', 'passport-td3.jpg');
    const meta = await sharp(doc).metadata();
    const height = meta.height ?? 0;
    const mrzBand = await sharp(doc)
      .extract({
        left: 0,
        top: Math.round(height * 0.75),
        width: meta.width ?? 0,
        height: Math.round(height * 0.25),
      })
      .jpeg()
      .toBuffer();
    const synthetic = await sharp({
      create: { width: 640, height: 480, channels: 3, background: { r: 40, g: 120, b: 200 } },
    })
      .composite([
        {
          input: Buffer.from(
            '<svg width="640" height="480"><circle cx="320" cy="240" r="90" fill="#e0b090"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    for (const img of [mrzBand, synthetic]) {
      const r = await analyzer.analyze(img);
      expect(r.error).toBeUndefined();
      expect(r.faces).toEqual([]);
      expect(r.width).toBeGreaterThan(0);
    }
  });

  it("finds a document portrait that face-api's detector misses (stamped across) with human's detector", async () => {
    const r = await analyzer.analyze(
      readFileSync(sharedPath('documents', 'passporteye', 'testdata', '79_pass-hun.png')),
    );
    expect(r.faces).toHaveLength(1);
    expect(r.faces[0]).toMatchObject({ detector: 'human', embedding: expect.any(Array) });
    expect(r.faces[0]?.embedding).toHaveLength(128);
    // the portrait is on the left third of the page
    expect(r.faces[0]!.box.x + r.faces[0]!.box.width).toBeLessThan(r.width / 3);
  });

  it('returns an error, never a throw, for a corrupt, truncated or empty file', async () => {
    const truncated = face('img20.jpg').subarray(0, 2000);
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>',
    );
    for (const bytes of [Buffer.from('not an image at all'), truncated, new Uint8Array(0), svg]) {
      const r = await analyzer.analyze(bytes);
      expect(r.faces).toEqual([]);
      expect(r.error).toEqual(expect.any(String));
    }
    // the analyzer still works after errors
    expect((await analyzer.analyze(face('img21.jpg'))).faces).toHaveLength(1);
  });
});

describe.skipIf(!HAS_SHARED_DATA)(
  'createFaceAnalyzer inside a worker_thread (the identity Piscina pool)',
  () => {
    it('loads the models from disk and analyses an image with a bounded V8 heap', async () => {
      const built = join(REPO_ROOT, 'dist', 'identity', 'face', 'index.js');
      expect(existsSync(built), 'dist/identity/face/index.js missing: run `npm run build` first').toBe(true);
      const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { readFileSync } = require('node:fs');
      import(workerData.module).then(async ({ createFaceAnalyzer, wasmHeapBytes }) => {
        const analyzer = await createFaceAnalyzer();
        const r = await analyzer.analyze(readFileSync(workerData.image));
        await analyzer.analyze(readFileSync(workerData.large));
        const heap = wasmHeapBytes();
        await analyzer.close();
        parentPort.postMessage({
          faces: r.faces.length, dims: r.faces.map((f) => f.embedding.length), error: r.error ?? null, heap,
        });
      });`;
      const result = await new Promise<unknown>((resolve, reject) => {
        const worker = new Worker(code, {
          eval: true,
          workerData: {
            module: pathToFileURL(built).href,
            image: sharedPath('faces', 'deepface', 'couple.jpg'),
            large: sharedPath('faces', 'deepface', 'img40.jpg'), // 14 megapixels
          },
          resourceLimits: { maxOldGenerationSizeMb: 256 },
        });
        worker.once('message', (m) => {
          resolve(m);
          void worker.terminate();
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`worker exited with ${code} before answering`)));
      });
      expect(result).toMatchObject({ faces: 2, dims: [128, 128], error: null });
      // the tfjs wasm heap (outside V8's limits) stays bounded: images are scaled down before the models run
      expect((result as { heap: number }).heap).toBeGreaterThan(0);
      expect((result as { heap: number }).heap).toBeLessThan(512 * 2 ** 20);
    });
  },
);
