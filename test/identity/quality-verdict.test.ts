// The capture-quality pieces without a server: the one definition of the thresholds (a pure module the hosted
// page's bundle imports as it is), and the MRZ band found by image analysis before any OCR.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { findMrzBand } from '../../identity/document/band.js';
import type { Gray } from '../../identity/document/image.js';
import { quality } from '../../identity/document/reader.js';
import { QUALITY_THRESHOLDS, qualityProblems } from '../../identity/quality-thresholds.js';
import { qualityLook } from '../../server/documents/quality-service.js';
import { face, HAS_IDENTITY_DATA, SPECIMEN_TD3, syntheticPassport } from '../helpers/identity-images.js';
import { REPO_ROOT } from '../helpers/shared-data.js';

describe('quality thresholds: one definition', () => {
  it('imports nothing (the browser bundle takes it as it is)', () => {
    const text = readFileSync(join(REPO_ROOT, 'identity', 'quality-thresholds.ts'), 'utf8');
    expect(text).not.toMatch(/^\s*import\b/m);
    expect(text).not.toMatch(/\brequire\(/);
  });

  const { minShortSide: side, minBlur: blur, maxGlare: glare } = QUALITY_THRESHOLDS;
  it.each([
    ['good', 1200, 800, blur, glare, []],
    ['short side just too small', 1200, side - 1, blur, 0, ['resolution_low']],
    ['blurred', 1200, 800, blur - 0.1, 0, ['image_blurred']],
    ['glare', 1200, 800, blur, glare + 0.01, ['glare_high']],
    ['everything', 200, 200, 1, 0.9, ['resolution_low', 'image_blurred', 'glare_high']],
  ] as const)('%s', (_name, w, h, b, g, expected) => {
    expect(qualityProblems(w, h, b, g)).toEqual(expected);
    // the document reader's quality verdict is the same definition
    expect(quality(w, h, b, g)).toMatchObject({ ok: expected.length === 0, reasons: expected });
  });
});

async function grey(image: Buffer): Promise<Gray> {
  const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

describe.skipIf(!HAS_IDENTITY_DATA)('MRZ band by image analysis', () => {
  const page = () =>
    syntheticPassport(
      {
        surname: 'ERIKSSON',
        given_names: 'ANNA',
        birth_date: '1974-08-12',
        expiry_date: '2031-06-30',
        sex: 'F',
        document_number: 'X73192648',
      },
      face('img2.jpg'),
      { left: 560, top: 170, width: 420, height: 560 },
    );

  it.each([
    ['upright', 0],
    ['turned 8°', 8],
    ['sideways', 90],
  ])('finds the two lines of a rendered page %s', async (_name, turn) => {
    const img = await sharp(await page())
      .rotate(turn, { background: '#808080' })
      .toBuffer();
    const band = await findMrzBand(await grey(img));
    expect(band).not.toBeNull();
    expect(band?.lines).toBe(2);
    // the turn found undoes the turn made (up to a half turn), and the MRZ sits in the page's bottom fifth
    const undone = ((((band?.rotation ?? 99) + turn) % 180) + 180) % 180;
    expect(Math.min(undone, 180 - undone)).toBeLessThan(2);
    expect(band?.y0).toBeGreaterThan(0.6);
    expect(band?.y1).toBeLessThan(0.95);
  });

  it('finds none on a face photograph', async () => {
    expect(await findMrzBand(await grey(readFileSync(face('img17.jpg'))))).toBeNull();
  });
});

describe('what the quality look searches an upload for: what its side must show', () => {
  it.each([
    ['passport', 'single', { data: 'mrz', faces: true }],
    ['id_card', 'single', { data: 'any', faces: true }],
    ['driving_license', 'front', { data: null, faces: true }],
    ['driving_license', 'back', { data: 'any', faces: false }],
    ['id_card', 'back', { data: 'any', faces: false }],
    ['selfie', 'single', { data: null, faces: true }],
    ['proof_of_address', 'single', { data: null, faces: false }],
  ] as const)('%s, side %s', (docType, side, look) => {
    expect(qualityLook(docType, side)).toEqual(look);
  });
});

describe.skipIf(!HAS_IDENTITY_DATA)('a quality thread', () => {
  it('counts faces on a thread of its own, as the detector counts them on the asking thread', async () => {
    const { Piscina } = await import('piscina');
    const { createFaceAnalyzer } = await import('../../identity/face/index.js');
    const { IDENTITY_WORKER } = await import('../../server/paths.js');
    const pool = new Piscina({
      filename: IDENTITY_WORKER,
      minThreads: 1,
      maxThreads: 1,
      workerData: { role: 'quality' },
    });
    const here = await createFaceAnalyzer({ liveness: false });
    try {
      const images = [face('img2.jpg'), face('couple.jpg'), SPECIMEN_TD3].map((f) => readFileSync(f));
      for (const image of images) {
        const out = await pool.run({ kind: 'quality', image, look: { data: 'mrz', faces: true } });
        expect(out.quality.faces).toBe((await here.count(image)).faces);
      }
      // what the worker counted: one face, two, the specimen's portrait
      const counts = await Promise.all(images.map((image) => here.count(image)));
      expect(counts.map((c) => c.faces)).toEqual([1, 2, 1]);
      // corrupt bytes: the decoding error, no count
      const bad = await pool.run({
        kind: 'quality',
        image: new Uint8Array([1, 2, 3]),
        look: { data: null, faces: true },
      });
      expect(bad.quality.error).toBeDefined();
      expect(bad.quality.faces).toBeNull();
    } finally {
      await here.close();
      await pool.destroy();
    }
  }, 120_000);

  it('starts its counting thread again after that thread ended: the counts in flight fail, later ones are answered', async () => {
    const { pathToFileURL } = await import('node:url');
    const { startFaceCounter } = (await import(
      pathToFileURL(join(REPO_ROOT, 'dist/identity/face/count-thread.js')).href
    )) as typeof import('../../identity/face/count-thread.js');
    const counter = startFaceCounter();
    const image = readFileSync(face('img2.jpg'));
    try {
      const inFlight = counter.count(image);
      await counter.end();
      await expect(inFlight).rejects.toThrow(/ended/);
      expect((await counter.count(image)).faces).toBe(1);
    } finally {
      await counter.end();
    }
  }, 120_000);
});
