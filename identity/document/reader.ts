// The document reader: decode → quality → the MRZ band located by image analysis and read first, its reading
// taken only when accepted and its names confirmed by the LSTM engine → else the OCR search: skew/orientation →
// find the MRZ band with a strip or layout pass → read the band under several preprocessings → repair and parse
// each reading → rank by check digits → strict check and second-signal agreement. See docs/decisions/identity.md
// "Document reading" and "Faster reading".

import sharp from 'sharp';
import { qualityProblems } from '../quality-thresholds.js';
import { findMrzBand } from './band.js';
import { barcodeReading, frontReading, readBarcode, readFront } from './card.js';
import {
  crop,
  DEFAULT_LIMITS,
  decode,
  estimateSkew,
  type Gray,
  ImageError,
  type ImageLimits,
  measureQuality,
  normalize,
  otsu,
  png,
  resize,
  rotate,
  sauvola,
} from './image.js';
import {
  checkNames,
  findCandidates,
  hybridCandidate,
  LAYOUTS,
  namesConfirmed,
  type Parsed,
  parseLines,
  readCandidate,
} from './mrz/index.js';
import { createOcr, type Ocr, type OcrLine } from './ocr.js';
import { strictCheck } from './strict.js';
import type {
  DocumentReader,
  DocumentReading,
  ImageQuality,
  MrzFields,
  ReadSide,
  ReadStage,
} from './types.js';

export interface ReaderOptions extends Partial<ImageLimits> {
  /** find the MRZ band by image analysis and read it first; its reading is taken only when it is accepted and
   * the LSTM engine's reading of the band holds every letter of its name field (namesConfirmed), else the OCR
   * search runs as if it had not been tried. Default true; false reads by the OCR search alone.
   * docs/decisions/identity.md "Faster reading" */
  locateFirst?: boolean;
  /** record where each read's time goes in `DocumentReading.profile` (the benchmark's breakdown) */
  profile?: boolean;
}

/** Preprocessings of the located band read before the OCR search (gray, otsu): a reading taken from the band
 * needs two to agree, and a band those two do not read costs the search only two legacy passes more. */
const QUICK_PREPROCESSINGS = 2;

/** Width of the image the layout pass sees. */
const LAYOUT_WIDTH = 1600;
/** Height, in pixels, a text line of the MRZ band is scaled to before it is read. */
const BAND_LINE_HEIGHT = 44;
/** The same for the LSTM engine's second look at a band of small print no reading of which passed (43_pass-fra:
 * read right at 64 and 80 px Sauvola, wrong at 44 px by both engines). */
const LARGE_LINE_HEIGHTS = [64, 80, 96];

interface Reading extends Parsed {
  variant: string;
  rotation: number;
  raw: string[];
  /** the LSTM engine's text of the same band (names cross-check), '' when no band was found */
  lstm: string;
  /** the LSTM engine's text of the band binarised (Otsu), read only when its first reading left letters unresolved */
  lstm2: string;
}

export async function createReader(options: ReaderOptions = {}): Promise<DocumentReader> {
  const limits: ImageLimits = { ...DEFAULT_LIMITS, ...options };
  const locateFirst = options.locateFirst ?? true;
  // the engines load on their own threads while the reader is handed out: a first document's decoding, quality
  // measures, barcode look and band location (this thread's work) overlap the loading instead of following it
  let begun = false;
  const loading = createOcr();
  // a load failure is thrown by the reads that need the engines (and by close), not as an unhandled rejection
  loading.catch(() => {});
  const warm = loading.then((engine) => warmUp(engine, () => begun)).catch(() => {});
  // reads run one at a time (the queue), so one list collects the stages of the read in progress
  let stages: ReadStage[] | null = null;
  const engine: Promise<Ocr> = loading.then((e) =>
    options.profile ? timedOcr(e, (s) => stages?.push(s)) : e,
  );
  engine.catch(() => {});
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  return {
    read(image: Uint8Array, side: ReadSide = 'single', docType?: string): Promise<DocumentReading> {
      const barcodeFirst = docType !== 'passport';
      const run = queue.then(async () => {
        begun = true;
        stages = options.profile ? [] : null;
        const lap = stageClock((s) => stages?.push(s));
        const result = await readOne(engine, image, { limits, locateFirst, barcodeFirst, lap }, side);
        return stages ? { ...result, profile: stages } : result;
      });
      queue = run.catch(() => {});
      return run;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await warm;
      await (await loading).close();
    },
  };
}

/** The MRZ of ICAO 9303's specimen passport, rendered when a reader starts and read by each OCR pass the reader
 * uses: the engines' first use costs seconds (WebAssembly compiled on first call, the models' first pass), which
 * the first document would otherwise pay. The passes a read starts with (the legacy block and the LSTM engine's,
 * at once, as readBand runs them) come first; the OCR search's strip and page layout passes follow. None runs once
 * a read has begun (`busy`), the first two included when a document arrived while the engines loaded: that
 * document's own first passes pay the start-up, which costs it less than waiting for the specimen's passes and
 * then reading (a cold block and LSTM pass on a band ≈ 360 ms; the specimen's ≈ 430 ms, then the band's warm
 * ≈ 145 ms). A service's workers start before uploads arrive and are warmed in full. The readings are thrown
 * away, and neither engine learns from them
 * (classify_enable_learning is off), so no later reading changes. A failed warm-up only leaves that cost to the
 * first document. */
export async function warmUp(ocr: Ocr, busy: () => boolean): Promise<void> {
  const lines = [
    'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
    'L898902C36UTO7408122F1204159ZE184226B<<<<<10',
  ];
  const text = lines
    .map((l, i) => `<text x="24" y="${64 + i * 60}">${l.replaceAll('<', '&lt;')}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="170"><rect width="100%" height="100%" fill="#fff"/><g font-family="DejaVu Sans Mono, monospace" font-size="40">${text}</g></svg>`;
  try {
    const image = await sharp(Buffer.from(svg)).grayscale().png().toBuffer();
    if (busy()) return;
    await Promise.all([ocr.block(image), ocr.blockLstm(image)]);
    if (!busy()) await ocr.blockLines(image);
    if (!busy()) await ocr.layout(image);
  } catch {
    // the first document pays the start-up instead
  }
}

/** The OCR passes of `ocr`, each reported to `report` with its time. */
function timedOcr(ocr: Ocr, report: (s: ReadStage) => void): Ocr {
  const timed =
    <A extends unknown[], R>(stage: string, f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const t = performance.now();
      try {
        return await f(...a);
      } finally {
        report({ stage: `ocr.${stage}`, ms: Math.round(performance.now() - t) });
      }
    };
  return {
    layout: timed('layout', ocr.layout),
    block: timed('block', ocr.block),
    blockLines: timed('blockLines', ocr.blockLines),
    blockLstm: timed('blockLstm', ocr.blockLstm),
    pageLstm: timed('pageLstm', ocr.pageLstm),
    close: ocr.close,
  };
}

/** `lap(stage)` reports the time since the previous lap (or the clock's start) as `stage`. */
type Lap = (stage: string) => void;

function stageClock(report: (s: ReadStage) => void): Lap {
  let last = performance.now();
  return (stage) => {
    const now = performance.now();
    report({ stage, ms: Math.round(now - last) });
    last = now;
  };
}

export function quality(width: number, height: number, blur: number, glare: number): ImageQuality {
  const reasons = qualityProblems(width, height, blur, glare);
  return { width, height, blur, glare, ok: reasons.length === 0, reasons };
}

const EMPTY_QUALITY: ImageQuality = { width: 0, height: 0, blur: 0, glare: 0, ok: false, reasons: [] };

function failed(started: number, error: string, q: ImageQuality = EMPTY_QUALITY): DocumentReading {
  return {
    mrz: null,
    check_digits_valid: false,
    accepted: false,
    reasons: [error.split(':')[0] ?? error],
    quality: q,
    lines: [],
    corrected_lines: [],
    agreeing_readings: 0,
    rotation: 0,
    took_ms: Math.round(performance.now() - started),
    error,
  };
}

async function readOne(
  engine: Promise<Ocr>,
  image: Uint8Array,
  options: { limits: ImageLimits; locateFirst: boolean; barcodeFirst: boolean; lap: Lap },
  side: ReadSide,
): Promise<DocumentReading> {
  const { limits, lap } = options;
  const started = performance.now();
  const ocr = whenLoaded(engine);
  let decoded: Awaited<ReturnType<typeof decode>>;
  try {
    decoded = await decode(image, limits);
  } catch (err) {
    if (err instanceof ImageError) return failed(started, `${err.code}: ${err.message}`);
    return failed(started, `corrupt_image: ${(err as Error).message}`);
  }
  lap('decode');
  try {
    const q = await measureQuality(decoded.gray);
    const qual = quality(decoded.width, decoded.height, q.blur, q.glare);
    lap('quality');
    if (side === 'front') return frontReading(await readFront(ocr, decoded.gray), qual, started);
    // a barcode first: a licence's back has no MRZ, and a decoded PDF417 needs no OCR at all. A single side (a
    // data page, a card with its MRZ) gets only the look at the image as decoded before its MRZ band is read; the
    // deskewed looks, whose skew estimate costs more than the band's reading, only when that band gives no reading
    const staged = side === 'single';
    let barcode = options.barcodeFirst ? await readBarcode(decoded.gray, staged ? 'as-is' : 'all') : null;
    if (options.barcodeFirst) lap('barcode');
    if (barcode?.aamva) return barcodeReading(barcode, qual, started);
    const located = options.locateFirst ? await readLocated(ocr, decoded.gray, qual, started, lap) : null;
    if (located) return { ...located, barcode };
    if (options.barcodeFirst && staged) {
      const turned = await readBarcode(decoded.gray, 'turned');
      lap('barcode');
      if (turned?.aamva) return barcodeReading(turned, qual, started);
      barcode ??= turned;
    }
    const reading = { ...decide(await readAll(ocr, decoded.gray), qual, started), barcode };
    lap('search');
    return reading;
  } catch (err) {
    // engines that failed to load fail the read itself (rethrown here), as a reader that could not start did
    await engine;
    return failed(started, `read_failed: ${(err as Error).message}`);
  }
}

/** The passes of an engine still loading: each waits for it, so that the work before the first OCR pass runs
 * while it loads. */
function whenLoaded(engine: Promise<Ocr>): Ocr {
  return {
    layout: async (image) => (await engine).layout(image),
    block: async (image) => (await engine).block(image),
    blockLines: async (image) => (await engine).blockLines(image),
    blockLstm: async (image) => (await engine).blockLstm(image),
    pageLstm: async (image) => (await engine).pageLstm(image),
    close: async () => (await engine).close(),
  };
}

/** A reading worth stopping for: at least two check digits valid and a date that is a calendar date. */
function plausible(r: Reading): boolean {
  const total = LAYOUTS[r.fields.format].checks.length;
  return (
    total - r.invalid_checks.length >= 2 && (r.fields.birth_date !== null || r.fields.expiry_date !== null)
  );
}

/** The band found by image analysis (band.ts), read at once with no OCR pass to find it: its decided reading when
 * that is accepted (check digits, strict check, two preprocessings agreeing, the LSTM engine not disagreeing) AND
 * an LSTM reading of the band confirms every letter of its name field (namesConfirmed), else null and the OCR
 * search runs. The confirmation is what the page strip's reading gives the OCR search: without it a name that two
 * preprocessings misread alike and the LSTM engine reads too differently to be compared was accepted (79_pass-can:
 * QATN for MARTIN). */
async function readLocated(
  ocr: Ocr,
  gray: Gray,
  q: ImageQuality,
  started: number,
  lap: Lap,
): Promise<DocumentReading | null> {
  const found = await findMrzBand(gray);
  lap('locate');
  if (!found) return null;
  const img = normalize(await rotate(gray, found.rotation));
  const band: Band = {
    x0: found.x0 * img.width,
    x1: found.x1 * img.width,
    y0: found.y0 * img.height,
    y1: found.y1 * img.height,
    lineHeight: found.lineHeight * img.height,
  };
  const readings = await readBand(ocr, img, band, found.rotation, [], true);
  const decided = decide(readings, q, started);
  if (!decided.accepted || !decided.mrz) {
    lap('fallback');
    return null;
  }
  const { format } = decided.mrz;
  const engineTexts = new Set(readings.map((r) => r.lstm).filter(Boolean));
  const confirmed = [...engineTexts].some((t) => namesConfirmed(format, decided.corrected_lines, t));
  lap(confirmed ? 'located' : 'fallback');
  return confirmed ? decided : null;
}

/** Readings of the first orientation that gives a plausible one: the deskewed image, then upside down, then
 * the two quarter turns in case the skew estimate took vertical structure for lines (all readings when none
 * does). Only the deskewed orientation gets the page layout passes; the other turns put an MRZ that the strip of
 * the deskewed image missed at the bottom of the page, where their own strip read looks (an image without any
 * MRZ, a face photo, costs four strip reads instead of four more layout passes). The other turns are not tried
 * when the deskewed image's band already reads as an upright MRZ (uprightBand): its page is the right way up, and
 * the turns cannot read it better (25_pass-uto: three strip reads that found nothing, ~3.5 s). */
async function readAll(ocr: Ocr, gray: Gray): Promise<Reading[]> {
  const skew = await estimateSkew(gray);
  const base = Math.abs(skew) < 0.75 ? 0 : skew;
  const all: Reading[] = [];
  for (const extra of [0, 180, 90, 270]) {
    const rotation = Math.round((base + extra) * 100) / 100;
    const found = await readOrientation(ocr, gray, rotation, extra === 0);
    if (found.some(plausible)) return found;
    all.push(...found);
    if (extra === 0 && found.some(uprightBand)) return all;
  }
  return all;
}

/** A reading whose date field holds a calendar date where the layout puts it: an MRZ read the right way up (the
 * text of a page turned upside down or sideways does not parse to one), though its check digits may fail. */
function uprightBand(r: Reading): boolean {
  return r.fields.birth_date !== null || r.fields.expiry_date !== null;
}

const isMrzLike = (text: string): boolean => {
  const t = text.replace(/\s/g, '');
  return t.length >= 20 && (t.match(/</g) ?? []).length >= 2;
};

async function readOrientation(ocr: Ocr, gray: Gray, rotation: number, first: boolean): Promise<Reading[]> {
  const img = normalize(await rotate(gray, rotation));
  const readings: Reading[] = [];
  const add = (variant: string, text: string) => {
    for (const c of findCandidates(text)) {
      const parsed = readCandidate(c);
      if (parsed) readings.push({ ...parsed, variant, rotation, raw: c.lines, lstm: '', lstm2: '' });
    }
  };
  // first the bottom of the page, where passports, cards and visas print their MRZ, read as one block of MRZ
  // characters: cheap, and not misled by guilloches and portraits, which can make a page layout pass take a
  // minute and miss the MRZ altogether; the page layout pass only when the strip shows no MRZ, and only on the
  // deskewed orientation (see readAll)
  const strip = await stripLines(ocr, img);
  let band = mrzBand(strip.lines);
  if (band) {
    add('strip', strip.lines.map((l) => l.text).join('\n'));
    band = mapBand(band, strip.scale, strip.top);
  } else if (first) {
    const scale = LAYOUT_WIDTH / img.width;
    const layoutImg = await resize(img, LAYOUT_WIDTH, Math.max(1, img.height * scale));
    let lines = await ocr.layout(await png(layoutImg));
    // photographs with uneven light defeat tesseract's own global threshold: binarise locally and retry
    if (!lines.some((l) => isMrzLike(l.text))) {
      lines = await ocr.layout(await png(sauvola(layoutImg, 41, 0.2)));
    }
    add('layout', lines.map((l) => l.text).join('\n'));
    const found = mrzBand(lines);
    band = found && mapBand(found, scale, 0);
  }
  if (!band) return readings;
  return readBand(ocr, img, band, rotation, readings);
}

/** Reads the MRZ band `band` of the turned, normalised image `img` under every preprocessing, adding to
 * `readings` (those of the pass that located it). `quick`: a first look whose failure the OCR search follows, so
 * bounded: the first QUICK_PREPROCESSINGS preprocessings only and no second look at small print (the search gives
 * a band that needs them both). */
async function readBand(
  ocr: Ocr,
  img: Gray,
  band: Band,
  rotation: number,
  readings: Reading[],
  quick = false,
): Promise<Reading[]> {
  const add = (variant: string, text: string) => {
    for (const c of findCandidates(text)) {
      const parsed = readCandidate(c);
      if (parsed) readings.push({ ...parsed, variant, rotation, raw: c.lines, lstm: '', lstm2: '' });
    }
  };
  // crop the band from the full-resolution rotated image and scale it so a text line is BAND_LINE_HEIGHT high
  const bandImg = crop(img, band.x0, band.y0, band.x1 - band.x0, band.y1 - band.y0);
  // a text line BAND_LINE_HEIGHT high, the band at most 3,000 px wide (bounded work on odd layouts)
  const k = Math.min(BAND_LINE_HEIGHT / band.lineHeight, 3000 / Math.max(1, bandImg.width));
  const sized = await resize(bandImg, bandImg.width * k, bandImg.height * k);
  const preprocessings: [string, () => Gray | Promise<Gray>][] = [
    ['gray', () => sized],
    ['otsu', () => otsu(sized)],
    ['sauvola', () => sauvola(sized, BAND_LINE_HEIGHT * 2 + 1, 0.2)],
    // the legacy engine's letter confusions (W/N/H/M) change with the scale: one more voter, larger
    ['gray-large', () => resize(sized, sized.width * 1.35, sized.height * 1.35)],
  ];
  // a quick look (the located band, before the OCR search): the two preprocessings that agree on most documents
  const variants = quick ? preprocessings.slice(0, QUICK_PREPROCESSINGS) : preprocessings;
  // the LSTM engine's reading of the band: the second signal for names and country codes (see decide). It runs on
  // its own tesseract worker (thread) while the legacy engine reads the preprocessings: the two engines' passes
  // overlap instead of following each other, and each reads what it read before
  const lstmRead = ocr.blockLstm(await png(sized));
  // handled here too, so that a failure while the legacy passes run is not an unhandled rejection; it is thrown
  // where the text is awaited
  lstmRead.catch(() => {});
  for (const [name, make] of variants) {
    const text = await ocr.block(await png(await make()));
    add(name, text);
    // two preprocessings already agree on a valid reading whose letters the LSTM engine confirms: the
    // remaining preprocessings cannot change the outcome
    const top = agreeingValid(readings);
    if (top && top.size >= 2) {
      const names = checkNames(top.reading.fields.format, top.reading.lines, await lstmRead, []);
      if (names.compared && names.unresolved === 0) break;
    }
  }
  const lstm = await lstmRead;
  // the LSTM engine reads digits that the legacy engine takes for letters on some fonts (0/O, 2/Z, 8/B): one more
  // reading per legacy candidate (at most 8) with the characters check digits cover taken from its text
  const legacy = [...readings];
  const hybrids = (variant: string, text: string) => {
    const seen = new Set<string>();
    for (const r of legacy) {
      const key = `${r.fields.format}|${r.raw.join('|')}`;
      if (seen.has(key) || seen.size >= 8) continue;
      seen.add(key);
      const h = hybridCandidate({ format: r.fields.format, lines: r.raw }, text);
      // where several repairs pass a check digit, the legacy candidate's own characters decide (pickSupported)
      const parsed = h && readCandidate(h, [r.raw]);
      // the letters kept from a legacy candidate are only as good as that candidate: a hybrid counts when it
      // passes the strict check too (one candidate's misaligned start or stray letters must not outvote the others)
      if (h && parsed && passesStrict(parsed))
        readings.push({ ...parsed, variant, rotation, raw: h.lines, lstm: text, lstm2: '' });
    }
  };
  hybrids('lstm', lstm);
  // no reading passes its check digits and the strict check, and the band's lines are less than half
  // BAND_LINE_HEIGHT high: small print (a 376 px page's 10 px lines) that both engines misread at this scale (a
  // large scan that fails, 100_pass-bdr's 48 px lines, gains nothing from it). The LSTM engine reads the band once
  // more at each of LARGE_LINE_HEIGHTS, grey and Sauvola-binarised, for more hybrid readings; each one's names are
  // compared with the LSTM text its digits came from (decide), so a hybrid is only accepted when that text reads
  // the legacy engine's letters too
  const small = band.lineHeight * 2 < BAND_LINE_HEIGHT;
  if (!quick && small && !readings.some(passesStrict)) {
    for (const hl of LARGE_LINE_HEIGHTS) {
      const kl = Math.min(hl / band.lineHeight, 4000 / Math.max(1, bandImg.width));
      const large = await resize(bandImg, bandImg.width * kl, bandImg.height * kl);
      hybrids(`lstm-${hl}`, await ocr.blockLstm(await png(large)));
      hybrids(`lstm-${hl}-sauvola`, await ocr.blockLstm(await png(sauvola(large, hl * 2 + 1, 0.2))));
    }
  }
  // a valid reading whose letters the LSTM engine reads otherwise: the LSTM engine reads the band once more, on
  // another preprocessing, so that a known confusion of the legacy engine (W/N/H/M …) it reads alike twice can be
  // resolved (checkNames)
  let lstm2 = '';
  const unresolved = readings.some(
    (r) => r.check_digits_valid && checkNames(r.fields.format, r.lines, r.lstm || lstm, []).unresolved > 0,
  );
  if (unresolved) lstm2 = await ocr.blockLstm(await png(otsu(sized)));
  for (const r of readings) {
    r.lstm ||= lstm;
    r.lstm2 = lstm2;
  }
  return readings;
}

/** Fraction of the page, from its bottom edge, read as the MRZ strip. */
const STRIP_FRACTION = 0.5;

/** The bottom of the page scaled to LAYOUT_WIDTH, read as one block of MRZ characters with line boxes. */
async function stripLines(ocr: Ocr, img: Gray): Promise<{ lines: OcrLine[]; scale: number; top: number }> {
  const top = Math.floor(img.height * (1 - STRIP_FRACTION));
  const strip = crop(img, 0, top, img.width, img.height - top);
  const scale = LAYOUT_WIDTH / strip.width;
  const sized = await resize(strip, LAYOUT_WIDTH, Math.max(1, strip.height * scale));
  return { lines: await ocr.blockLines(await png(sized)), scale, top };
}

/** A band found on a copy scaled by `scale` (whose row 0 is the image's row `top`), in the image's pixels. */
function mapBand(b: Band, scale: number, top: number): Band {
  return {
    x0: b.x0 / scale,
    y0: b.y0 / scale + top,
    x1: b.x1 / scale,
    y1: b.y1 / scale + top,
    lineHeight: b.lineHeight / scale,
  };
}

/** The valid reading that the most distinct preprocessings gave, and how many. */
function agreeingValid(readings: Reading[]): { reading: Reading; size: number } | null {
  const groups = new Map<string, { reading: Reading; variants: Set<string> }>();
  for (const r of readings) {
    if (!r.check_digits_valid) continue;
    const key = JSON.stringify(r.fields);
    const g = groups.get(key) ?? { reading: r, variants: new Set<string>() };
    g.variants.add(r.variant);
    groups.set(key, g);
  }
  let best: { reading: Reading; size: number } | null = null;
  for (const g of groups.values()) {
    if (!best || g.variants.size > best.size) best = { reading: g.reading, size: g.variants.size };
  }
  return best;
}

interface Band {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  lineHeight: number;
}

/** The box around the MRZ-like lines of a layout pass (the cluster with the most '<'), with margins. */
export function mrzBand(lines: OcrLine[]): Band | null {
  const cand = lines.filter((l) => isMrzLike(l.text)).sort((a, b) => a.bbox.y0 - b.bbox.y0);
  if (cand.length === 0) return null;
  const clusters: OcrLine[][] = [];
  for (const l of cand) {
    const last = clusters[clusters.length - 1];
    const prev = last?.[last.length - 1];
    const h = l.bbox.y1 - l.bbox.y0;
    if (last && prev && l.bbox.y0 - prev.bbox.y1 < 2.5 * h) last.push(l);
    else clusters.push([l]);
  }
  const score = (c: OcrLine[]) => c.reduce((s, l) => s + (l.text.match(/</g) ?? []).length, 0);
  // an MRZ has two or three lines: the window of at most three consecutive lines with the most '<'
  const windows = clusters.flatMap((c) =>
    c.length <= 3 ? [c] : c.slice(0, c.length - 2).map((_, i) => c.slice(i, i + 3)),
  );
  const best = windows.reduce((a, b) => (score(b) > score(a) ? b : a));
  const heights = best.map((l) => l.bbox.y1 - l.bbox.y0).sort((a, b) => a - b);
  const lineHeight = Math.max(8, heights[Math.floor(heights.length / 2)] ?? 8);
  const x0 = Math.min(...best.map((l) => l.bbox.x0));
  const x1 = Math.max(...best.map((l) => l.bbox.x1));
  const y0 = Math.min(...best.map((l) => l.bbox.y0));
  const y1 = Math.max(...best.map((l) => l.bbox.y1));
  const mx = (x1 - x0) * 0.04 + lineHeight;
  const my = lineHeight * 0.8;
  return { x0: x0 - mx, y0: y0 - my, x1: x1 + mx, y1: y1 + my, lineHeight };
}

/** Valid check digits and no strict-check finding. */
function passesStrict(r: Parsed): boolean {
  return r.check_digits_valid && strictCheck(r.fields, r.lines).length === 0;
}

function rank(r: Reading): number[] {
  const strictOk = passesStrict(r);
  // more check digits (TD3's composite, say, against a visa's none) is more evidence
  const checks = LAYOUTS[r.fields.format].checks.length;
  return [
    r.check_digits_valid ? 1 : 0,
    strictOk ? 1 : 0,
    checks - r.invalid_checks.length,
    -r.invalid_checks.length,
    -r.changes,
  ];
}

/** The best of non-empty `readings` (rank); ties keep the earlier. */
function bestOf(readings: Reading[]): Reading {
  let best = readings[0] as Reading;
  for (const r of readings) if (better(r, best)) best = r;
  return best;
}

function better(a: Reading, b: Reading): boolean {
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) {
    if ((ra[i] ?? 0) !== (rb[i] ?? 0)) return (ra[i] ?? 0) > (rb[i] ?? 0);
  }
  return false;
}

/** Readings of the same band and format as `r` from other preprocessings: the support for an LSTM letter. */
function othersOf(r: Reading, readings: Reading[]): string[][] {
  return readings
    .filter(
      (o) => o.variant !== r.variant && o.rotation === r.rotation && o.fields.format === r.fields.format,
    )
    .map((o) => o.lines);
}

/** A valid reading with the letters the engines resolve resolved (checkNames): readings that differ only in
 * letters the legacy engine confuses are then the same reading, not a disagreement. `unresolved`: the letters
 * the engines still read otherwise. */
function resolveNames(r: Reading, readings: Reading[]): { reading: Reading; unresolved: number } {
  if (!r.check_digits_valid || !r.lstm) return { reading: r, unresolved: 0 };
  const names = checkNames(r.fields.format, r.lines, r.lstm, othersOf(r, readings), r.lstm2 ? [r.lstm2] : []);
  const reparsed = names.adopted ? parseLines(r.fields.format, names.lines, r.changes + names.adopted) : null;
  const reading = reparsed?.check_digits_valid ? { ...r, ...reparsed } : r;
  return { reading, unresolved: names.unresolved };
}

/** Valid readings that disagree with no larger group among them: the readings whose check digits fail can still
 * tell. A group's backers are the preprocessings with a reading, valid or not, that has the group's value in every
 * field where the groups differ (100_pass-isl: A0000000 read by two preprocessings, ADUU00DU — valid check digits
 * by chance — by one). The index of the group with at least two backers and more than any other, else null
 * (→ readings_disagree). */
export function tieBreak(
  groups: MrzFields[],
  readings: { variant: string; fields: MrzFields }[],
): number | null {
  const keys = Object.keys(groups[0] ?? {}) as (keyof MrzFields)[];
  const contested = keys.filter((k) => groups.some((g) => g[k] !== groups[0]?.[k]));
  const backers = groups.map(
    (g) =>
      new Set(
        readings
          .filter((r) => r.fields.format === g.format && contested.every((k) => r.fields[k] === g[k]))
          .map((r) => r.variant),
      ).size,
  );
  const most = Math.max(...backers);
  if (most < 2 || backers.filter((b) => b === most).length > 1) return null;
  return backers.indexOf(most);
}

function decide(input: Reading[], q: ImageQuality, started: number): DocumentReading {
  const took = () => Math.round(performance.now() - started);
  const readings = input.map((r) => resolveNames(r, input).reading);
  if (readings.length === 0) {
    return {
      mrz: null,
      check_digits_valid: false,
      accepted: false,
      reasons: ['mrz_not_found'],
      quality: q,
      lines: [],
      corrected_lines: [],
      agreeing_readings: 0,
      rotation: 0,
      took_ms: took(),
    };
  }
  // the best reading; ties keep the earlier (deterministic order of variants)
  let best = bestOf(readings);
  // second signal: readings of other preprocessings with valid check digits, grouped by their fields; the
  // largest group (by distinct preprocessings) wins if it has at least two and no other group is as large
  const valid = readings.filter((r) => r.check_digits_valid);
  const groups = new Map<string, Reading[]>();
  for (const r of valid) {
    const key = JSON.stringify(r.fields);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const size = (g: Reading[]) => new Set(g.map((r) => r.variant)).size;
  const ranked = [...groups.values()].sort((a, b) => size(b) - size(a));
  const top = ranked[0];
  let agreeing = best.check_digits_valid ? 1 : 0;
  let disagree = false;
  if (top && best.check_digits_valid) {
    const second = ranked[1];
    if (size(top) >= 2 && (!second || size(second) < size(top))) {
      best = bestOf(top);
      agreeing = size(top);
    } else if (ranked.length > 1) {
      const won = tieBreak(
        ranked.map((g) => (g[0] as Reading).fields),
        readings,
      );
      const g = won === null ? undefined : ranked[won];
      if (g) {
        best = bestOf(g);
        agreeing = size(g);
      } else {
        disagree = true;
        agreeing = size(groups.get(JSON.stringify(best.fields)) ?? [best]);
      }
    }
  }
  // names: check digits do not cover them; a second engine (LSTM) must agree letter by letter
  const names = resolveNames(best, input);
  best = names.reading;
  const namesUnresolved = names.unresolved > 0;
  const reasons: string[] = [];
  if (!best.check_digits_valid) reasons.push('check_digit_invalid');
  const strict = strictCheck(best.fields, best.lines);
  if (best.check_digits_valid && strict.length) reasons.push('strict_check_failed', ...strict);
  if (disagree || namesUnresolved) reasons.push('readings_disagree');
  return {
    mrz: best.fields,
    check_digits_valid: best.check_digits_valid,
    accepted: reasons.length === 0,
    reasons,
    quality: q,
    lines: best.raw,
    corrected_lines: best.lines,
    agreeing_readings: agreeing,
    rotation: best.rotation,
    took_ms: took(),
  };
}
