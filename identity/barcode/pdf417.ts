// PDF417 reading with zxing-wasm (ZXing-C++ in WebAssembly). The library fetches its .wasm from a CDN unless told
// otherwise: here the binary is read from the npm package on disk and handed over as `wasmBinary`, so nothing is
// downloaded (locateFile only names the file; with wasmBinary set it is never fetched).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, type ReadResult, readBarcodes } from 'zxing-wasm/reader';
import type { Gray } from '../document/image.js';

const require = createRequire(import.meta.url);
export const ZXING_READER_WASM = require.resolve('zxing-wasm/reader/zxing_reader.wasm');

let loading: Promise<unknown> | undefined;

/** Loads and instantiates the reader's wasm from node_modules (once per thread). */
export function loadBarcodeReader(): Promise<unknown> {
  loading ??= Promise.resolve().then(() =>
    prepareZXingModule({
      overrides: {
        wasmBinary: readFileSync(ZXING_READER_WASM).buffer as ArrayBuffer,
        locateFile: (path: string) => `${ZXING_READER_WASM.slice(0, -'zxing_reader.wasm'.length)}${path}`,
      },
      fireImmediately: true,
    }),
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
