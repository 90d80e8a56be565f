// `veriscreen read-document FILE... [--front F --back B]...`: reads the MRZ or the PDF417 barcode of each image
// offline and prints one JSON line per file (one per --front/--back pair), in argument order. A file that cannot be read (missing, corrupt, unsupported, too large) gets its line with
// `mrz: null` and `error`; the exit status is then 1 (0 when every file was read, whether or not an MRZ was
// found; 2 for usage errors). No database, Redis or NATS.
import { readFile, stat } from 'node:fs/promises';
import { DEFAULT_LIMITS } from '../../identity/document/image.js';
import {
  type BarcodeReading,
  createDocumentReader,
  type DocumentReader,
  type DocumentReading,
  type ReadSide,
  readingData,
} from '../../identity/document/index.js';
import { reportedReading } from '../../identity/document/report.js';
import { frontMatches } from '../checks/types/front-text.js';
import { parseArgs, UsageError } from './args.js';

export interface ReadDocumentLine {
  path: string;
  mrz: DocumentReading['mrz'];
  barcode: BarcodeReading | null;
  check_digits_valid: boolean;
  accepted: boolean;
  reasons: string[];
  quality: DocumentReading['quality'];
  lines: string[];
  took_ms: number;
  front_text?: string | null;
  /** --front/--back: the front's file and its printed text against the back's data */
  front_path?: string;
  front_matches?: ReturnType<typeof frontMatches> | null;
  error?: string;
}

export async function readDocumentCommand(argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const other = Object.keys(flags).find((f) => f !== 'front' && f !== 'back');
  if (other) throw new UsageError(`read-document takes no option --${other}`);
  const fronts = flags.front ?? [];
  const backs = flags.back ?? [];
  if (fronts.length !== backs.length) throw new UsageError('read-document needs --front and --back in pairs');
  if (!positional.length && !fronts.length)
    throw new UsageError('read-document needs at least one image file');
  const reader = await createDocumentReader();
  let failed = 0;
  const print = (line: ReadDocumentLine) => {
    if (line.error) failed++;
    process.stdout.write(`${JSON.stringify(line)}\n`);
  };
  try {
    for (const path of positional) print(await readPath(reader, path));
    for (const [i, front] of fronts.entries()) print(await readCard(reader, front, backs[i] as string));
  } finally {
    await reader.close();
  }
  return failed ? 1 : 0;
}

/** One card from its two sides: the back's line, with the front's text compared with the back's data. */
async function readCard(reader: DocumentReader, front: string, back: string): Promise<ReadDocumentLine> {
  const f = await readPath(reader, front, 'front');
  const b = await readPath(reader, back, 'back');
  const data = readingData(b);
  const text = f.front_text ?? null;
  return {
    ...b,
    front_path: front,
    front_text: text,
    front_matches: data ? frontMatches(text, data) : null,
    ...(f.error && !b.error ? { error: `front: ${f.error}` } : {}),
  };
}

async function readPath(
  reader: DocumentReader,
  path: string,
  side: ReadSide = 'single',
): Promise<ReadDocumentLine> {
  const started = performance.now();
  let bytes: Buffer;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not_a_file' });
    if (s.size > DEFAULT_LIMITS.maxBytes) {
      return fileError(path, started, `file_too_large: ${s.size} bytes, limit ${DEFAULT_LIMITS.maxBytes}`);
    }
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file_not_found' : 'file_unreadable';
    return fileError(path, started, `${code}: ${(err as Error).message}`);
  }
  const r = await reader.read(bytes, side);
  return { path, ...reportedReading(r), ...(r.error ? { error: r.error } : {}) };
}

function fileError(path: string, started: number, error: string): ReadDocumentLine {
  return {
    path,
    mrz: null,
    barcode: null,
    check_digits_valid: false,
    accepted: false,
    reasons: [error.split(':')[0] ?? error],
    quality: { width: 0, height: 0, blur: 0, glare: 0, ok: false, reasons: [] },
    lines: [],
    took_ms: Math.round(performance.now() - started),
    error,
  };
}
