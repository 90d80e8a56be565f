// Cards read by their sides: a back's PDF417 barcode (AAMVA, North American licences and ID cards) read before any
// OCR, and a front's printed text read by the LSTM engine so that its name and date of birth can be compared with
// the back's data. docs/decisions/identity.md "Capture quality and licences".
import { aamvaMissing, parseAamva } from '../barcode/aamva.js';
import { readPdf417 } from '../barcode/pdf417.js';
import { estimateSkew, type Gray, png, resize, rotate, sauvola } from './image.js';
import type { Ocr } from './ocr.js';
import type { BarcodeReading, DocumentReading, ImageQuality } from './types.js';

/** Which of readBarcode's looks to take: all of them, the image as decoded only (a few milliseconds), or the
 * deskewed ones only (the skew estimate costs a few hundred milliseconds). */
export type BarcodeLooks = 'all' | 'as-is' | 'turned';

/** The PDF417 symbol on a card's back: as decoded, then deskewed (zxing's detector tolerates little rotation),
 * then binarised (uneven light, glare); the first symbol whose payload is AAMVA wins, else the first decoded one
 * (its error says why it is not used). `looks`: all three, the first only, or the two after it. */
export async function readBarcode(gray: Gray, looks: BarcodeLooks = 'all'): Promise<BarcodeReading | null> {
  let first: BarcodeReading | null = null;
  let deskewed: Gray | undefined;
  const straight = async () => {
    deskewed ??= await rotate(gray, await estimateSkew(gray));
    return deskewed;
  };
  const attempts: (() => Promise<Gray>)[] = [
    async () => gray,
    straight,
    async () => sauvola(await straight(), Math.max(15, Math.round(gray.width / 40)) | 1, 0.15),
  ];
  for (const [i, image] of attempts.entries()) {
    if ((looks === 'as-is' && i > 0) || (looks === 'turned' && i === 0)) continue;
    for (const symbol of await readPdf417(await image(), i > 0)) {
      const parsed = parseAamva(symbol.text);
      const reading: BarcodeReading = parsed.ok
        ? { format: 'PDF417', aamva: parsed.fields, missing: aamvaMissing(parsed.fields), error: null }
        : { format: 'PDF417', aamva: null, missing: [], error: `barcode_not_aamva: ${parsed.error}` };
      if (reading.aamva) return reading;
      first ??= reading;
    }
  }
  return first;
}

const took = (started: number) => Math.round(performance.now() - started);

/** A reading without an MRZ: what the sides of a card give. */
const withoutMrz = (q: ImageQuality, started: number) => ({
  mrz: null,
  check_digits_valid: false,
  quality: q,
  lines: [],
  corrected_lines: [],
  agreeing_readings: 0,
  rotation: 0,
  took_ms: took(started),
});

/** A reading from a barcode alone: accepted when the payload names its holder (error correction leaves no OCR
 * doubt; a payload lacking a field goes to review). */
export function barcodeReading(barcode: BarcodeReading, q: ImageQuality, started: number): DocumentReading {
  const reasons = barcode.missing.length ? ['barcode_incomplete'] : [];
  return { ...withoutMrz(q, started), barcode, accepted: reasons.length === 0, reasons };
}

/** Width a front is scaled to before the LSTM engine reads it. */
const FRONT_WIDTH = 1600;

/** A front's printed text (the LSTM engine, page layout). */
export async function readFront(ocr: Ocr, gray: Gray): Promise<string> {
  const k = FRONT_WIDTH / gray.width;
  const sized = Math.abs(k - 1) > 0.05 ? await resize(gray, FRONT_WIDTH, gray.height * k) : gray;
  return ocr.pageLstm(await png(sized));
}

/** A front side's reading: its text for the comparison with the back, no data of its own. */
export function frontReading(text: string, q: ImageQuality, started: number): DocumentReading {
  return {
    ...withoutMrz(q, started),
    barcode: null,
    front_text: text,
    accepted: false,
    reasons: ['front_side'],
  };
}
