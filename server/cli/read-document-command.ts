// `veriscreen read-document FILE...`: reads the MRZ of each image offline and prints one JSON line per file, in
// argument order. A file that cannot be read (missing, corrupt, unsupported, too large) gets its line with
// `mrz: null` and `error`; the exit status is then 1 (0 when every file was read, whether or not an MRZ was
// found; 2 for usage errors). No database, Redis or NATS.
import { readFile, stat } from 'node:fs/promises';
import { DEFAULT_LIMITS } from '../../identity/document/image.js';
import { createDocumentReader, type DocumentReading } from '../../identity/document/index.js';
import { reportedReading } from '../../identity/document/report.js';
import { parseArgs, UsageError } from './args.js';

export interface ReadDocumentLine {
  path: string;
  mrz: DocumentReading['mrz'];
  check_digits_valid: boolean;
  accepted: boolean;
  reasons: string[];
  quality: DocumentReading['quality'];
  lines: string[];
  took_ms: number;
  error?: string;
}

export async function readDocumentCommand(argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  if (Object.keys(flags).length)
    throw new UsageError(`read-document takes no options (got --${Object.keys(flags)[0]})`);
  if (!positional.length) throw new UsageError('read-document needs at least one image file');
  const reader = await createDocumentReader();
  let failed = 0;
  try {
    for (const path of positional) {
      const line = await readPath(reader, path);
      if (line.error) failed++;
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
  } finally {
    await reader.close();
  }
  return failed ? 1 : 0;
}

async function readPath(
  reader: Awaited<ReturnType<typeof createDocumentReader>>,
  path: string,
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
  const r = await reader.read(bytes);
  return { path, ...reportedReading(r), ...(r.error ? { error: r.error } : {}) };
}

function fileError(path: string, started: number, error: string): ReadDocumentLine {
  return {
    path,
    mrz: null,
    check_digits_valid: false,
    accepted: false,
    reasons: [error.split(':')[0] ?? error],
    quality: { width: 0, height: 0, blur: 0, glare: 0, ok: false, reasons: [] },
    lines: [],
    took_ms: Math.round(performance.now() - started),
    error,
  };
}
