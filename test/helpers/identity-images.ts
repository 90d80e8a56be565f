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

/** ICAO 9303 check digit (weights 7, 3, 1; '<' = 0, A–Z = 10–35), written here independently of the reader. */
function icaoCheckDigit(s: string): string {
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : 0;
    sum += v * ([7, 3, 1][i % 3] ?? 0);
  }
  return String(sum % 10);
}

export interface SyntheticPassport {
  surname: string;
  given_names: string;
  /** YYYY-MM-DD */
  birth_date: string;
  /** YYYY-MM-DD */
  expiry_date: string;
  sex: 'M' | 'F';
  document_number: string;
  /** ICAO code of the issuing state and the nationality (default UTO, ICAO's fictional specimen state) */
  country?: string;
}

/** The two TD3 lines of a passport, with correct check digits. */
export function td3Lines(p: SyntheticPassport): [string, string] {
  const fill = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
  const yymmdd = (d: string) => d.slice(2, 4) + d.slice(5, 7) + d.slice(8, 10);
  const country = p.country ?? 'UTO';
  const l1 = fill(`P<${country}${p.surname.replace(/ /g, '<')}<<${p.given_names.replace(/ /g, '<')}`, 44);
  const num = fill(p.document_number, 9);
  const opt = fill('', 14);
  const a = num + icaoCheckDigit(num);
  const b = yymmdd(p.birth_date) + icaoCheckDigit(yymmdd(p.birth_date));
  const c = yymmdd(p.expiry_date) + icaoCheckDigit(yymmdd(p.expiry_date));
  const o = opt + icaoCheckDigit(opt);
  return [l1, a + country + b + p.sex + c + o + icaoCheckDigit(a + b + c + o)];
}

/** A passport data page rendered at test time (SVG → JPEG with sharp/librsvg, the MRZ in DejaVu Sans Mono): a
 * document that has not expired, with `portrait` (its `crop` box) as the holder's photo. The specimens of
 * ../shared/data all expired in 2012, so only a rendered page can reach an approval. */
export async function syntheticPassport(
  p: SyntheticPassport,
  portrait: string,
  crop: { left: number; top: number; width: number; height: number },
): Promise<Buffer> {
  const [l1, l2] = td3Lines(p);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const label = (x: number, y: number, name: string, value: string) =>
    `<text x="${x}" y="${y}" font-size="18">${esc(name)}</text>` +
    `<text x="${x + 10}" y="${y + 30}" font-size="24">${esc(value)}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1334" height="880">
<rect width="100%" height="100%" fill="#fff"/>
<rect x="70" y="35" width="1184" height="800" rx="40" fill="none" stroke="#444" stroke-width="3"/>
<g font-family="DejaVu Sans, sans-serif" fill="#000">
<text x="465" y="105" font-size="48" font-weight="bold">UTOPIA</text>
<text x="210" y="150" font-size="28">Passport</text>
${label(467, 165, 'Type', 'P')}${label(640, 165, 'Country code', p.country ?? 'UTO')}
${label(910, 165, 'Passport No.', p.document_number)}${label(467, 230, 'Surname', p.surname)}
${label(467, 292, 'Given names', p.given_names)}${label(467, 354, 'Date of birth', p.birth_date)}
${label(467, 416, 'Sex', p.sex)}${label(467, 478, 'Date of expiry', p.expiry_date)}
</g>
<g font-family="DejaVu Sans Mono, monospace" font-size="36" letter-spacing="2.3" fill="#000">
<text x="120" y="700">${esc(l1)}</text>
<text x="120" y="760">${esc(l2)}</text>
</g></svg>`;
  const photo = await sharp(await readFile(portrait))
    .extract(crop)
    .resize(300, 400, { fit: 'cover' })
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: photo, left: 130, top: 210 }])
    .jpeg({ quality: 92 })
    .toBuffer();
}
