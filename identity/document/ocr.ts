// tesseract.js on the legacy engine with the English traineddata shipped in @tesseract.js-data/eng: core and
// language data come from node_modules, nothing is downloaded or cached on disk.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Block, createWorker, OEM, PSM, type Worker } from 'tesseract.js';

const require = createRequire(import.meta.url);

/** `4.0.0/` of @tesseract.js-data/eng holds the full model (legacy + LSTM); `4.0.0_best_int/` is LSTM only.
 * The legacy engine reads the MRZ filler '<' reliably, the LSTM model often reads it as K or L. */
export const LANG_PATH = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0');

export const MRZ_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

export interface OcrLine {
  text: string;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

export interface Ocr {
  /** Page layout analysis (PSM 3), no whitelist: text lines with boxes. */
  layout(png: Buffer): Promise<OcrLine[]>;
  /** One block of MRZ text (PSM 6, MRZ characters only). */
  block(png: Buffer): Promise<string>;
  /** The same, as text lines with boxes (to locate the MRZ band in a strip of the page). */
  blockLines(png: Buffer): Promise<OcrLine[]>;
  /** The same with the LSTM engine: a second engine for the letters of names. */
  blockLstm(png: Buffer): Promise<string>;
  /** A page's printed text by the LSTM engine (page layout, every character): a card's front. */
  pageLstm(png: Buffer): Promise<string>;
  close(): Promise<void>;
}

export async function createOcr(): Promise<Ocr> {
  let failure: unknown = null;
  const errorHandler = (e: unknown) => {
    failure = e;
  };
  // the two engines load on threads of their own, at the same time: a reader's start waits for the slower one
  // instead of both in turn
  const started = await Promise.allSettled([
    (async (): Promise<Worker> => {
      const w = await createWorker(
        'eng',
        OEM.TESSERACT_ONLY,
        {
          langPath: LANG_PATH,
          gzip: true,
          cacheMethod: 'none',
          legacyCore: true,
          legacyLang: true,
          // without a handler tesseract.js throws from its message listener, which would crash the process
          errorHandler,
        },
        { load_system_dawg: '0', load_freq_dawg: '0' },
      );
      // the legacy classifier adapts to what it has seen unless learning is off: readings would depend on the
      // order in which images were processed. A fixed resolution and debug output to /dev/null keep tesseract's
      // warnings ("Invalid resolution", "Estimating resolution") off our stdout.
      await w.setParameters({
        classify_enable_learning: '0',
        user_defined_dpi: '300',
        debug_file: '/dev/null',
      });
      return w;
    })(),
    (async (): Promise<Worker> => {
      const w = await createWorker(
        'eng',
        OEM.LSTM_ONLY,
        { langPath: LANG_PATH, gzip: true, cacheMethod: 'none', errorHandler },
        { load_system_dawg: '0', load_freq_dawg: '0' },
      );
      await w.setParameters({
        user_defined_dpi: '300',
        debug_file: '/dev/null',
        tessedit_pageseg_mode: PSM.SINGLE_BLOCK,
        tessedit_char_whitelist: MRZ_CHARS,
      });
      return w;
    })(),
  ]);
  const [legacyStart, lstmStart] = started;
  if (legacyStart.status === 'rejected' || lstmStart.status === 'rejected') {
    // one engine failed to load: stop the other, so that no thread is left behind
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.terminate() : null)));
    throw legacyStart.status === 'rejected'
      ? legacyStart.reason
      : (lstmStart as PromiseRejectedResult).reason;
  }
  const worker = legacyStart.value;
  const lstm = lstmStart.value;
  let mode = '';
  const setMode = async (psm: PSM, whitelist: string) => {
    const key = `${psm}|${whitelist}`;
    if (key === mode) return;
    await worker.setParameters({ tessedit_pageseg_mode: psm, tessedit_char_whitelist: whitelist });
    mode = key;
  };
  const guard = <T>(p: Promise<T>): Promise<T> =>
    p.catch((e: unknown) => {
      throw new Error(`ocr failed: ${String(failure ?? e)}`);
    });
  return {
    async layout(png) {
      await setMode(PSM.AUTO, '');
      const r = await guard(worker.recognize(png, {}, { text: false, blocks: true }));
      return linesOf(r.data.blocks);
    },
    async block(png) {
      await setMode(PSM.SINGLE_BLOCK, MRZ_CHARS);
      const r = await guard(worker.recognize(png, {}, { text: true }));
      return r.data.text;
    },
    async blockLines(png) {
      await setMode(PSM.SINGLE_BLOCK, MRZ_CHARS);
      const r = await guard(worker.recognize(png, {}, { text: false, blocks: true }));
      return linesOf(r.data.blocks);
    },
    async blockLstm(png) {
      const r = await guard(lstm.recognize(png, {}, { text: true }));
      return r.data.text;
    },
    async pageLstm(png) {
      await lstm.setParameters({ tessedit_pageseg_mode: PSM.AUTO, tessedit_char_whitelist: '' });
      try {
        const r = await guard(lstm.recognize(png, {}, { text: true }));
        return r.data.text;
      } finally {
        await lstm.setParameters({
          tessedit_pageseg_mode: PSM.SINGLE_BLOCK,
          tessedit_char_whitelist: MRZ_CHARS,
        });
      }
    },
    async close() {
      await Promise.all([worker.terminate(), lstm.terminate()]);
    },
  };
}

function linesOf(blocks: Block[] | null): OcrLine[] {
  const out: OcrLine[] = [];
  for (const b of blocks ?? []) {
    for (const p of b.paragraphs) for (const l of p.lines) out.push({ text: l.text, bbox: l.bbox });
  }
  return out;
}
