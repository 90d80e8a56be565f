import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { sharedPath } from './shared-data.js';

/** Specimen documents (PassportEye) and face photos (deepface) from ../shared/data. */
export const SPECIMEN_TD3 = sharedPath('documents', 'passporteye', 'tests', 'passport-td3.png');
export const SPECIMEN_TD2 = sharedPath('documents', 'passporteye', 'tests', 'passport-td2.jpg');
export const face = (name: string) => sharedPath('faces', 'deepface', name);
export const HAS_IDENTITY_DATA = [SPECIMEN_TD3, SPECIMEN_TD2, face('img2.jpg'), face('couple.jpg')].every(
  (f) => existsSync(f),
);
if (!HAS_IDENTITY_DATA) {
  process.stderr.write(
    'skipped: identity tests need ../shared/data/documents/passporteye and faces/deepface\n',
  );
}

/** The face of `base` pasted over the portrait of a specimen (box in the specimen's pixels). */
export async function specimenWithPortrait(
  specimen: string,
  box: { left: number; top: number; width: number; height: number },
  portrait: string,
  crop: { left: number; top: number; width: number; height: number },
): Promise<Buffer> {
  const photo = await sharp(await readFile(portrait))
    .extract(crop)
    .resize(box.width, box.height, { fit: 'cover' })
    .toBuffer();
  return sharp(await readFile(specimen))
    .composite([{ input: photo, left: box.left, top: box.top }])
    .jpeg({ quality: 92 })
    .toBuffer();
}
