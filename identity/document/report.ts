import type { DocumentReading } from './types.js';

/** What a reading shows outside the reader (check evidence, the read-document CLI): the verdict, the fields, the
 * quality and the OCR lines, without the repair internals (corrected lines, agreeing readings, rotation). */
export function reportedReading(r: DocumentReading) {
  return {
    mrz: r.mrz,
    barcode: r.barcode ?? null,
    ...(r.front_text === undefined ? {} : { front_text: r.front_text }),
    check_digits_valid: r.check_digits_valid,
    accepted: r.accepted,
    reasons: r.reasons,
    quality: r.quality,
    lines: r.lines,
    took_ms: r.took_ms,
  };
}
