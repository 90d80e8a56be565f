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

/** Starts a tesseract worker (legacy engine, English traineddata from @tesseract.js-data/eng) and returns a
 * reader. `read` never throws: corrupt, unsupported or oversized files give `mrz: null` and `error`. Calls are
 * processed one at a time; call `close` to stop the OCR worker. */
export function createDocumentReader(options?: ReaderOptions): Promise<DocumentReader> {
  return createReader(options);
}
