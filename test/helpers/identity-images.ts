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

/** ICAO 9303 check digit (weights 7, 3, 1; `<` = 0, A = 10 …). */
export function checkDigit(s: string): string {
  const w = [7, 3, 1];
  let sum = 0;
  [...s].forEach((c, i) => {
    const v = c === '<' ? 0 : /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 55;
    sum += v * (w[i % 3] as number);
  });
  return String(sum % 10);
}

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const yymmdd = (iso: string) => iso.slice(2).replaceAll('-', '');

/** The two TD3 lines of a passport with every check digit right. */
export function td3Lines(p: {
  country: string;
  surname: string;
  given: string;
  number: string;
  dob: string;
  sex: 'M' | 'F';
  expiry: string;
}): [string, string] {
  const l1 = pad(`P<${p.country}${p.surname.replaceAll(' ', '<')}<<${p.given.replaceAll(' ', '<')}`, 44);
  const num = pad(p.number, 9);
  const opt = pad('', 14);
  const parts = [
    num + checkDigit(num),
    p.country,
    yymmdd(p.dob) + checkDigit(yymmdd(p.dob)),
    p.sex,
    yymmdd(p.expiry) + checkDigit(yymmdd(p.expiry)),
    opt + checkDigit(opt),
  ];
  const composite = checkDigit(
    (parts[0] as string) + (parts[2] as string) + (parts[4] as string) + (parts[5] as string),
  );
  return [l1, parts.join('') + composite];
}

/**
 * A synthetic passport data page: the portrait from a deepface photo (cropped to the face box given), a printed
 * zone and a TD3 MRZ in a monospace font — a document that has not expired, for the approval path. Test data
 * only: it passes no security feature, it only gives the OCR a real image to read.
 */
export async function syntheticPassport(
  portrait: string,
  crop: { left: number; top: number; width: number; height: number },
  lines: [string, string],
): Promise<Buffer> {
  const W = 1400;
  const H = 980;
  const photo = await sharp(await readFile(portrait))
    .extract(crop)
    .resize(330, 430, { fit: 'cover' })
    .toBuffer();
  const text = (x: number, y: number, size: number, t: string, weight = 'normal') =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${size}" font-weight="${weight}" fill="#223">${t}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <rect width="100%" height="100%" fill="#dfe6e2"/>
    ${text(60, 80, 44, 'PASSPORT', 'bold')}
    ${text(460, 200, 30, `Surname: ${lines[0].slice(5).split('<<')[0]?.replaceAll('<', ' ')}`)}
    ${text(460, 260, 30, 'Specimen for automated tests')}
    <text x="40" y="${H - 110}" font-family="DejaVu Sans Mono" font-size="46" fill="#000">${lines[0].replaceAll('<', '&lt;')}</text>
    <text x="40" y="${H - 40}" font-family="DejaVu Sans Mono" font-size="46" fill="#000">${lines[1].replaceAll('<', '&lt;')}</text>
  </svg>`;
  return sharp(Buffer.from(svg))
    .composite([{ input: photo, left: 60, top: 140 }])
    .jpeg({ quality: 90 })
    .toBuffer();
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
