// Licence images rendered at run time for the tests and bench:identity:documents (no licence images are shared:
// real ones carry personal data).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { prepareZXingModule, writeBarcode } from 'zxing-wasm/full';
import { composeAamva } from '../identity/barcode/aamva.js';
import { wasmFromDisk } from '../identity/barcode/pdf417.js';

// Licence test images rendered at test time: PDF417 symbols of AAMVA payloads written by zxing-wasm's encoder
// (zint inside ZXing-C++), its wasm read from node_modules (the library's default loader would fetch it from a CDN).

const require = createRequire(import.meta.url);
const FULL_WASM = require.resolve('zxing-wasm/full/zxing_full.wasm');
let ready: Promise<unknown> | undefined;

function loadWriter(): Promise<unknown> {
  ready ??= Promise.resolve().then(() =>
    prepareZXingModule({ overrides: wasmFromDisk(FULL_WASM), fireImmediately: true }),
  );
  return ready;
}

/** A PNG of the PDF417 symbol of `payload` (bytes as Latin-1), `scale` pixels per module. */
export async function pdf417Png(payload: string, scale = 3, columns = 10): Promise<Buffer> {
  await loadWriter();
  const out = await writeBarcode(Buffer.from(payload, 'latin1'), {
    format: 'PDF417',
    scale,
    options: `columns=${columns}`,
  });
  if (out.error || !out.image) throw new Error(`PDF417 encoding failed: ${out.error}`);
  return Buffer.from(await out.image.arrayBuffer());
}

export interface Licence {
  /** AAMVA issuer number (636014 = California) */
  issuer: string;
  jurisdiction: string;
  version: number;
  number: string;
  family: string;
  first: string;
  middle?: string;
  /** YYYY-MM-DD */
  birth: string;
  expiry: string;
  issued: string;
  sex: 'M' | 'F';
  street: string;
  city: string;
  postal: string;
  country?: 'USA' | 'CAN';
}

/** AAMVA date: MMDDCCYY in the United States (version ≥ 2), CCYYMMDD in Canada and version 1. */
const aamvaDate = (d: string, l: Licence) =>
  l.version >= 2 && (l.country ?? 'USA') === 'USA'
    ? `${d.slice(5, 7)}${d.slice(8, 10)}${d.slice(0, 4)}`
    : d.replace(/-/g, '');

/** The licence's AAMVA payload. */
export function licencePayload(l: Licence): string {
  return composeAamva({
    issuer: l.issuer,
    version: l.version,
    jurisdictionVersion: 0,
    elements: [
      ['DAQ', l.number],
      ['DCS', l.family],
      ['DAC', l.first],
      ['DAD', l.middle ?? 'NONE'],
      ['DBD', aamvaDate(l.issued, l)],
      ['DBB', aamvaDate(l.birth, l)],
      ['DBA', aamvaDate(l.expiry, l)],
      ['DBC', l.sex === 'M' ? '1' : '2'],
      ['DAG', l.street],
      ['DAI', l.city],
      ['DAJ', l.jurisdiction],
      ['DAK', l.postal],
      ['DCF', `${l.number}DISC`],
      ['DCG', l.country ?? 'USA'],
      ['DDA', 'F'],
    ],
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const usDate = (d: string) => `${d.slice(5, 7)}/${d.slice(8, 10)}/${d.slice(0, 4)}`;
const CARD = { width: 1012, height: 638 };

/** A licence's front: jurisdiction banner, portrait (`crop` of `portrait`), printed fields. */
export async function licenceFront(
  l: Licence,
  portrait: string,
  crop: { left: number; top: number; width: number; height: number },
): Promise<Buffer> {
  const field = (x: number, y: number, label: string, value: string, size = 30) =>
    `<text x="${x}" y="${y}" font-size="16" fill="#6a1b1b">${esc(label)}</text>` +
    `<text x="${x}" y="${y + size + 4}" font-size="${size}" font-weight="bold">${esc(value)}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD.width}" height="${CARD.height}">
<rect width="100%" height="100%" rx="36" fill="#e9eef5"/>
<rect width="100%" height="90" rx="36" fill="#23467a"/>
<g font-family="DejaVu Sans, sans-serif" fill="#111">
<text x="40" y="60" font-size="40" font-weight="bold" fill="#fff">${esc(l.jurisdiction)} DRIVER LICENSE</text>
${field(360, 130, 'DL', l.number, 34)}
${field(360, 205, 'LN', l.family)}
${field(360, 270, 'FN', [l.first, l.middle].filter(Boolean).join(' '))}
${field(360, 335, 'DOB', usDate(l.birth))}${field(680, 335, 'EXP', usDate(l.expiry))}
${field(360, 400, 'ADDRESS', l.street, 24)}
<text x="360" y="462" font-size="24" font-weight="bold">${esc(`${l.city}, ${l.jurisdiction} ${l.postal.slice(0, 5)}`)}</text>
${field(360, 490, 'SEX', l.sex, 26)}${field(520, 490, 'ISS', usDate(l.issued), 26)}
</g></svg>`;
  const photo = await sharp(await readFile(portrait))
    .extract(crop)
    .resize(290, 380, { fit: 'cover' })
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: photo, left: 40, top: 120 }])
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** A licence's back: a PDF417 of `payload` (the licence's own unless given) across its width, a line of text. */
export async function licenceBack(l: Licence, payload = licencePayload(l)): Promise<Buffer> {
  const code = await pdf417Png(payload, 2, 6);
  const meta = await sharp(code).metadata();
  const width = CARD.width - 80;
  const scaled = await sharp(code)
    .resize(width, Math.round(((meta.height ?? 100) * width) / (meta.width ?? width)), { kernel: 'nearest' })
    .toBuffer();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD.width}" height="${CARD.height}">
<rect width="100%" height="100%" rx="36" fill="#eef0f2"/>
<text x="40" y="70" font-family="DejaVu Sans, sans-serif" font-size="22" fill="#333">This card is the property of the state. If found, return to the DMV.</text>
</svg>`;
  return sharp(Buffer.from(svg))
    .composite([{ input: scaled, left: 40, top: 150 }])
    .jpeg({ quality: 92 })
    .toBuffer();
}

export interface Photographing {
  /** degrees clockwise */
  rotate?: number;
  /** how much nearer the camera the right edge is (0 = none; 0.1 = 10 % taller) */
  perspective?: number;
  /** Gaussian σ in pixels */
  blur?: number;
  jpeg?: number;
  /** the card's width in the photograph, in pixels */
  width?: number;
  /** a saturated highlight over this fraction of the card's width */
  glare?: number;
}

/** A card photographed in software: on a grey desk, turned, in perspective, blurred, glared, small, compressed. */
export async function photograph(card: Buffer, p: Photographing): Promise<Buffer> {
  let img = sharp(card);
  if (p.glare) {
    const { width = CARD.width, height = CARD.height } = await sharp(card).metadata();
    const r = (width * p.glare) / 2;
    const glow = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs>
<radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="1"/><stop offset="0.6" stop-color="#fff" stop-opacity="0.95"/>
<stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
<ellipse cx="${width * 0.7}" cy="${height * 0.3}" rx="${r}" ry="${r * 0.7}" fill="url(#g)"/></svg>`;
    img = sharp(await img.composite([{ input: Buffer.from(glow) }]).toBuffer());
  }
  let buf: Buffer = await img.toBuffer();
  if (p.perspective) buf = await perspective(buf, p.perspective);
  const desk = { r: 96, g: 92, b: 88 };
  buf = await sharp(buf)
    .extend({ top: 60, bottom: 60, left: 60, right: 60, background: desk })
    .rotate(p.rotate ?? 0, { background: desk })
    .toBuffer();
  let out = sharp(buf);
  if (p.width) out = out.resize({ width: Math.round(p.width * 1.15) });
  if (p.blur) out = out.blur(p.blur);
  return out.jpeg({ quality: p.jpeg ?? 90 }).toBuffer();
}

/** A keystone warp: the right edge `k` taller than the left (a card held at an angle), by inverse mapping. */
async function perspective(image: Buffer, k: number): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  const H = Math.round(h * (1 + k));
  const out = Buffer.alloc(w * H * c, 90);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < w; x++) {
      // column x spans a height growing linearly from h (left) to H (right), centred
      const span = h + ((H - h) * x) / w;
      const sy = ((y - (H - span) / 2) * h) / span;
      if (sy < 0 || sy >= h) continue;
      const src = (Math.floor(sy) * w + x) * c;
      const dst = (y * w + x) * c;
      for (let ch = 0; ch < c; ch++) out[dst + ch] = data[src + ch] ?? 0;
    }
  }
  return sharp(out, { raw: { width: w, height: H, channels: c } })
    .png()
    .toBuffer();
}
