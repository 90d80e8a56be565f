import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { judgeFrame, toGray } from '../../applicant/src/quality.js';
import { DEFAULT_LIMITS, decode, measureQuality } from '../../identity/document/image.js';
import { QUALITY_MEASURE, QUALITY_THRESHOLDS } from '../../identity/quality-thresholds.js';
import { face, HAS_IDENTITY_DATA, SPECIMEN_TD3, syntheticPassport } from '../helpers/identity-images.js';

/**
 * One definition of capture quality (docs/journey.md): the hosted page's live feedback (applicant/src/quality.ts) and
 * the server's document reader (identity/document/image.ts) measure with the same function and judge with the same
 * rule (identity/quality-thresholds.ts). What differs is how each gets its grey image (the page converts a canvas's
 * RGBA itself, the server asks sharp): on the same picture their numbers must stay close and their verdicts equal.
 */

const PORTRAIT = { left: 560, top: 170, width: 420, height: 560 };

/** A photographed page: the passport on grey paper (80 % of white) with a saturated reflection over a fifth of it. */
async function withGlare(page: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(page).greyscale().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const out = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inSpot = ((x - width / 2) / (width / 4)) ** 2 + ((y - height / 2) / (height / 3.5)) ** 2 <= 1;
      out[y * width + x] = inSpot ? 255 : Math.round((data[y * width + x] ?? 0) * 0.8);
    }
  }
  return sharp(out, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
}

/** The server's numbers (identity/document/image.ts: sharp's grey, then measureQuality) and the page's (its own grey
 * conversion of the RGBA a canvas gives, then judgeFrame) on the same image at the measuring width. */
async function both(image: Buffer) {
  const { gray, width, height } = await decode(image, DEFAULT_LIMITS);
  const server = await measureQuality(gray);
  const { data, info } = await sharp(image)
    .resize(QUALITY_MEASURE.width)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const page = judgeFrame(toGray(new Uint8ClampedArray(data)), info.width, info.height, { width, height });
  return { server, page };
}

describe.skipIf(!HAS_IDENTITY_DATA)('capture quality: the page measures as the server does', () => {
  it('gives the same blur and glare as the reader, and the reasons of the shared thresholds', async () => {
    const passport = await syntheticPassport(
      {
        surname: 'ERIKSSON',
        given_names: 'ANNA MARIA',
        birth_date: '1974-08-12',
        expiry_date: '2031-06-30',
        sex: 'F',
        document_number: 'X73192648',
      },
      face('img2.jpg'),
      PORTRAIT,
    );
    const cases = {
      sharp: passport,
      specimen: await readFile(SPECIMEN_TD3),
      blurred: await sharp(passport).blur(6).jpeg().toBuffer(),
      glare: await withGlare(passport),
      small: await sharp(passport).resize(280).jpeg().toBuffer(),
    };
    const reasons: Record<string, string[]> = {};
    for (const [name, image] of Object.entries(cases)) {
      const { server, page } = await both(image);
      // the same measure; only the grey conversion and the scaling differ (canvas vs sharp)
      expect(Math.abs(page.blur - server.blur) / Math.max(1, server.blur), name).toBeLessThan(0.15);
      expect(Math.abs(page.glare - server.glare), name).toBeLessThan(0.02);
      reasons[name] = page.reasons;
    }
    expect(reasons).toEqual({
      sharp: [],
      specimen: [],
      blurred: ['image_blurred'],
      glare: ['glare_high'],
      small: ['resolution_low'],
    });
    expect(QUALITY_THRESHOLDS.minShortSide).toBeGreaterThan(280);
  });
});
