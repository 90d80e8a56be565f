// Document reading (ICAO 9303 machine-readable zones) for the identity module. Pure: imports nothing from
// server/, loads everything from node_modules, safe to create inside a worker_thread (one reader per thread).
import { createReader, type ReaderOptions } from './reader.js';
import type { DocumentReader } from './types.js';

export { QUALITY_THRESHOLDS } from '../quality-thresholds.js';
export { barcodeData, type DocumentData, mrzData, readingData } from './data.js';
export type { ReaderOptions } from './reader.js';
export { ICAO_CODES, type StrictReason, strictCheck } from './strict.js';
export type {
  BarcodeReading,
  DocumentReader,
  DocumentReading,
  ImageQuality,
  MrzFields,
  MrzFormat,
  ReadSide,
  ReadStage,
} from './types.js';

/** Starts the tesseract workers (legacy and LSTM engines, English traineddata from @tesseract.js-data/eng) and
 * returns a reader at once, while they load. `read` does not throw for an image: corrupt, unsupported or oversized
 * files give `mrz: null` and `error`; it rejects only when the engines could not load. Calls are processed one at a
 * time; call `close` to stop the OCR workers. */
export function createDocumentReader(options?: ReaderOptions): Promise<DocumentReader> {
  return createReader(options);
}
