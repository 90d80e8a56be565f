// Public types of the document reader (the identity module contract, docs/decisions.md "Document reading").

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

export interface DocumentReading {
  mrz: MrzFields | null;
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
  /** corrupt/unsupported/oversized file: mrz null, never a throw */
  error?: string;
}

export interface DocumentReader {
  read(image: Uint8Array): Promise<DocumentReading>;
  close(): Promise<void>;
}
