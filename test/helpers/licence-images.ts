import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, writeBarcode } from 'zxing-wasm/full';

// Licence test images rendered at test time: PDF417 symbols of AAMVA payloads written by zxing-wasm's encoder
// (zint inside ZXing-C++), its wasm read from node_modules (the library's default loader would fetch it from a CDN).

const require = createRequire(import.meta.url);
const FULL_WASM = require.resolve('zxing-wasm/full/zxing_full.wasm');
let ready: Promise<unknown> | undefined;

function loadWriter(): Promise<unknown> {
  ready ??= Promise.resolve().then(() =>
    prepareZXingModule({
      overrides: {
        wasmBinary: readFileSync(FULL_WASM).buffer as ArrayBuffer,
        locateFile: (path: string) => `${FULL_WASM.slice(0, -'zxing_full.wasm'.length)}${path}`,
      },
      fireImmediately: true,
    }),
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
