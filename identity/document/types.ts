// Public types of the document reader (the identity module contract, docs/decisions.md "Document reading").
import type { AamvaFields } from '../barcode/aamva.js';

export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB';

export interface MrzFields {
  format: MrzFormat;
  document_type: string;
  issuing_country: string;
  document_number: string;
  surname: string;
  given_names: string;
  nationality: string;
  /** YYYY-MM-DD */
  birth_date: string | null;
  sex: 'M' | 'F' | 'X';
  /** YYYY-MM-DD */
  expiry_date: string | null;
  optional_data: string | null;
}

export interface ImageQuality {
  width: number;
  height: number;
  /** variance of the Laplacian at 1000 px wide; higher = sharper */
  blur: number;
  /** fraction of saturated (≥ 250) pixels */
  glare: number;
  ok: boolean;
  /** 'resolution_low' | 'image_blurred' | 'glare_high' */
  reasons: string[];
}

/** A PDF417 barcode found on the image (the back of a North American licence or ID card). */
export interface BarcodeReading {
  format: 'PDF417';
  /** the AAMVA fields, null when the payload is not AAMVA or is corrupt (then `error`) */
  aamva: AamvaFields | null;
  /** fields the payload lacks to identify its holder (document number, names, birth and expiry dates) */
  missing: string[];
  error: string | null;
}

export interface DocumentReading {
  mrz: MrzFields | null;
  /** the PDF417 barcode, null when none was found (not looked for on a front side) */
  barcode?: BarcodeReading | null;
  /** a front side's printed text, read by the LSTM engine (compared with the back's data) */
  front_text?: string | null;
  /** every check digit incl. composite */
  check_digits_valid: boolean;
  /** check digits AND strict check AND (second signal agrees where one exists) */
  accepted: boolean;
  /** why not accepted (catalogue in docs/decisions.md) */
  reasons: string[];
  quality: ImageQuality;
  /** the MRZ text lines as read by OCR (for evidence) */
  lines: string[];
  /** the lines after check-digit repair, from which `mrz` was parsed */
  corrected_lines: string[];
  /** how many independent readings (different preprocessing) gave the same fields */
  agreeing_readings: number;
  /** rotation applied before reading, clockwise degrees (EXIF orientation already applied) */
  rotation: number;
  took_ms: number;
  /** where the time went, in order (ReaderOptions.profile only; never stored): image stages and each OCR pass */
  profile?: ReadStage[];
  /** corrupt/unsupported/oversized file: mrz null, never a throw */
  error?: string;
}

/** One step of a read and its wall-clock time: `decode`, `quality`, `barcode`, `locate` (the MRZ band by image
 * analysis), `located` (its reading was taken) or `fallback` (the OCR search follows), `ocr.<pass>` (one OCR pass:
 * layout, block, blockLines, blockLstm, pageLstm). */
export interface ReadStage {
  stage: string;
  ms: number;
}

/** Which side of a two-sided document an image shows: `front` is read for its printed text only (its portrait is
 * the face analyser's), `back` and `single` for their barcode or MRZ. */
export type ReadSide = 'front' | 'back' | 'single';

export interface DocumentReader {
  /** `docType` (the upload's declared type): a passport is not searched for a barcode */
  read(image: Uint8Array, side?: ReadSide, docType?: string): Promise<DocumentReading>;
  close(): Promise<void>;
}
