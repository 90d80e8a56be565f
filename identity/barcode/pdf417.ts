// PDF417 reading with zxing-wasm (ZXing-C++ in WebAssembly). The library fetches its .wasm from a CDN unless told
// otherwise: here the binary is read from the npm package on disk and handed over as `wasmBinary`, so nothing is
// downloaded (locateFile only names the file; with wasmBinary set it is never fetched).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { prepareZXingModule, type ReadResult, readBarcodes } from 'zxing-wasm/reader';
import type { Gray } from '../document/image.js';

const require = createRequire(import.meta.url);
export const ZXING_READER_WASM = require.resolve('zxing-wasm/reader/zxing_reader.wasm');

let loading: Promise<unknown> | undefined;

/** zxing-wasm module overrides that load `wasmFile` from disk: with `wasmBinary` set the library never fetches;
 * `locateFile` only names the file (its default names a CDN). */
export function wasmFromDisk(wasmFile: string) {
  return {
    wasmBinary: readFileSync(wasmFile).buffer as ArrayBuffer,
    locateFile: (file: string) => join(dirname(wasmFile), file),
  };
}

/** Loads and instantiates the reader's wasm from node_modules (once per thread). */
export function loadBarcodeReader(): Promise<unknown> {
  loading ??= Promise.resolve().then(() =>
    prepareZXingModule({ overrides: wasmFromDisk(ZXING_READER_WASM), fireImmediately: true }),
  );
  return loading;
}

export interface Pdf417Symbol {
  /** the decoded bytes as Latin-1 text (AAMVA payloads are ASCII; control characters kept) */
  text: string;
  /** corners in the image's pixels: top-left, top-right, bottom-right, bottom-left */
  corners: { x: number; y: number }[];
}

const rgba = (g: Gray) => {
  const out = new Uint8ClampedArray(g.width * g.height * 4);
  for (let i = 0; i < g.data.length; i++) {
    const v = g.data[i] ?? 0;
    out[i * 4] = v;
    out[i * 4 + 1] = v;
    out[i * 4 + 2] = v;
    out[i * 4 + 3] = 255;
  }
  return { data: out, width: g.width, height: g.height, colorSpace: 'srgb' as const };
};

/** The PDF417 symbols zxing finds on a grey image (rotations tried; `harder`: denoise and more scales). */
export async function readPdf417(g: Gray, harder = false): Promise<Pdf417Symbol[]> {
  await loadBarcodeReader();
  const results: ReadResult[] = await readBarcodes(rgba(g) as unknown as Parameters<typeof readBarcodes>[0], {
    formats: ['PDF417'],
    tryHarder: true,
    tryRotate: true,
    tryInvert: false,
    tryDownscale: true,
    tryDenoise: harder,
    maxNumberOfSymbols: 2,
    textMode: 'Plain',
  });
  return results
    .filter((r) => r.isValid && r.bytes.length > 0)
    .map((r) => ({
      text: Buffer.from(r.bytes).toString('latin1'),
      corners: [r.position.topLeft, r.position.topRight, r.position.bottomRight, r.position.bottomLeft],
    }));
}
