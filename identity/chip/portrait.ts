// The chip portrait as a JPEG any viewer and the face analyzer read: JPEG as it is, JPEG 2000 decoded with OpenJPEG
// compiled to WebAssembly (@cornerstonejs/codec-openjpeg). The wasm is read from the package on disk and handed to
// the module (wasmBinary), so its loader never locates or fetches anything.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import type { Portrait } from './data-groups.js';
import { ChipFormatError } from './tlv.js';

const require = createRequire(import.meta.url);

interface FrameInfo {
  width: number;
  height: number;
  bitsPerSample: number;
  componentCount: number;
  isSigned: boolean;
}

interface J2KDecoder {
  getEncodedBuffer(length: number): Uint8Array;
  decode(): void;
  getDecodedBuffer(): Uint8Array;
  getFrameInfo(): FrameInfo;
  delete(): void;
}

interface OpenJpegModule {
  J2KDecoder: new () => J2KDecoder;
}

type Factory = (m: { wasmBinary: Uint8Array; print(): void; printErr(): void }) => Promise<OpenJpegModule>;

/** The decoder module, created once per thread on first use. */
let openjpeg: Promise<OpenJpegModule> | undefined;

function decoderModule(): Promise<OpenJpegModule> {
  if (!openjpeg) {
    const js = require.resolve('@cornerstonejs/codec-openjpeg/decodewasmjs');
    const wasm = readFileSync(require.resolve('@cornerstonejs/codec-openjpeg/decodewasm'));
    const factory = require(js) as Factory;
    openjpeg = factory({ wasmBinary: wasm, print() {}, printErr() {} });
  }
  return openjpeg;
}

/** The contiguous codestream of a JP2 file (its 'jp2c' box); a raw codestream is returned as it is. */
export function codestream(image: Uint8Array): Uint8Array {
  if (image[0] === 0xff && image[1] === 0x4f) return image;
  const view = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  for (let at = 0; at + 8 <= view.length; ) {
    let size = view.readUInt32BE(at);
    const type = view.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > view.length) break;
      size = Number(view.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = view.length - at;
    if (size < header || at + size > view.length) break;
    if (type === 'jp2c') return image.subarray(at + header, at + size);
    at += size;
  }
  throw new ChipFormatError('dg2_malformed', 'DG2: the JPEG 2000 file has no codestream box');
}

/** Pixel cap for a decoded portrait (ICAO portraits are a few hundred pixels a side). */
const MAX_PIXELS = 4_000_000;

/** The portrait as JPEG bytes. */
export async function portraitJpeg(p: Portrait): Promise<Buffer> {
  if (p.format === 'jpeg') return Buffer.from(p.image);
  const m = await decoderModule();
  const dec = new m.J2KDecoder();
  try {
    const cs = codestream(p.image);
    dec.getEncodedBuffer(cs.length).set(cs);
    try {
      dec.decode();
    } catch (err) {
      // emscripten throws the C++ exception as a bare pointer
      throw new ChipFormatError('dg2_malformed', `DG2: the JPEG 2000 image does not decode (${String(err)})`);
    }
    const f = dec.getFrameInfo();
    if (!f.width || !f.height || f.width * f.height > MAX_PIXELS) {
      throw new ChipFormatError('dg2_malformed', `DG2: JPEG 2000 image of ${f.width}×${f.height} pixels`);
    }
    if (f.bitsPerSample !== 8 || (f.componentCount !== 1 && f.componentCount !== 3)) {
      throw new ChipFormatError(
        'dg2_malformed',
        `DG2: JPEG 2000 image with ${f.componentCount} components of ${f.bitsPerSample} bits`,
      );
    }
    const pixels = Buffer.from(dec.getDecodedBuffer());
    return await sharp(pixels, {
      raw: { width: f.width, height: f.height, channels: f.componentCount as 1 | 3 },
    })
      .jpeg({ quality: 92 })
      .toBuffer();
  } finally {
    dec.delete();
  }
}
