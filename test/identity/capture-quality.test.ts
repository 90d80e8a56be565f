import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { judgeFrame } from '../../applicant/src/quality.js';
import { DEFAULT_LIMITS, decode, measureQuality, resize } from '../../identity/document/image.js';
import { QUALITY_MEASURE, QUALITY_THRESHOLDS } from '../../identity/quality-thresholds.js';
import { face, HAS_IDENTITY_DATA, SPECIMEN_TD3, syntheticPassport } from '../helpers/identity-images.js';

/**
 * One definition of capture quality (docs/journey.md): the hosted page's live feedback (applicant/src/quality.ts)
 * measures blur and glare exactly as the server's document reader does (identity/document/image.ts) and judges them
 * with the same thresholds (identity/quality-thresholds.ts). Both are given the same grey image at the measuring
 * width; they must agree to the last digit.
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

async function both(image: Buffer) {
  const { gray, width, height } = await decode(image, DEFAULT_LIMITS);
  const g = await resize(gray, QUALITY_MEASURE.width, (gray.height * QUALITY_MEASURE.width) / gray.width);
  const server = await measureQuality(g);
  const page = judgeFrame(g.data, g.width, g.height, { width, height });
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
      expect({ blur: page.blur, glare: page.glare }, name).toEqual(server);
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
