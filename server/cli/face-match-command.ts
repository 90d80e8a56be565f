// `veriscreen face-match`: offline face verification of image pairs, with the models and threshold of the selfie
// check (identity/face). Reads {"a": FILE, "b": FILE} JSON lines on stdin, writes one JSON line per input line.
// Exit status: 0 once stdin has been read to its end, whatever the lines held (a bad line is an error line on
// stdout carrying its line number); 1 when the command cannot start (bad flag, models failing to load).
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  createFaceAnalyzer,
  FACE_MATCH_THRESHOLD,
  type FaceAnalysis,
  type FaceAnalyzer,
  faceSimilarity,
  primaryFace,
} from '../../identity/face/index.js';
import { FaceMatchIn } from '../../schemas/face-match.js';
import { ValidationError } from '../errors.js';
import { compileValidator } from '../http/validation.js';
import { flag, parseArgs, UsageError } from './args.js';

const validate = compileValidator(FaceMatchIn, 'body');

/** Files larger than this are refused before they are read (sharp also refuses more than 50 megapixels). */
export const FACE_MATCH_MAX_FILE_BYTES = 30 * 1024 * 1024;

class LineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Side {
  faces: number;
  embedding: number[] | null;
  liveness: number | null;
}

/** Pair lists name the same image many times: its analysis is kept (the primary face only), up to `max` files. */
class SideCache {
  private readonly map = new Map<string, Side>();
  constructor(private readonly max: number) {}
  get(path: string): Side | undefined {
    const v = this.map.get(path);
    if (v) {
      this.map.delete(path);
      this.map.set(path, v);
    }
    return v;
  }
  set(path: string, v: Side): void {
    this.map.set(path, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

async function analyzeFile(analyzer: FaceAnalyzer, cache: SideCache, which: 'a' | 'b', path: string) {
  const cached = cache.get(path);
  if (cached) return cached;
  let bytes: Buffer;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new LineError('file_unreadable', `${which}: ${path} is not a file`);
    if (st.size > FACE_MATCH_MAX_FILE_BYTES) {
      throw new LineError(
        'file_too_large',
        `${which}: ${path} is ${st.size} bytes (limit ${FACE_MATCH_MAX_FILE_BYTES})`,
      );
    }
    bytes = await readFile(path);
  } catch (err) {
    if (err instanceof LineError) throw err;
    throw new LineError('file_unreadable', `${which}: ${(err as Error).message}`);
  }
  const analysis: FaceAnalysis = await analyzer.analyze(bytes);
  if (analysis.error) throw new LineError('image_unreadable', `${which}: ${path}: ${analysis.error}`);
  const face = primaryFace(analysis);
  const side = {
    faces: analysis.faces.length,
    embedding: face?.embedding ?? null,
    liveness: face?.liveness ?? null,
  };
  cache.set(path, side);
  return side;
}

function lineError(err: unknown): { code: string; message: string } {
  if (err instanceof LineError) return { code: err.code, message: err.message };
  if (err instanceof ValidationError)
    return { code: 'validation_failed', message: err.message.replaceAll('body.', '') };
  if (err instanceof SyntaxError) return { code: 'json_invalid', message: err.message };
  return { code: 'internal_error', message: (err as Error).message };
}

export async function faceMatchCommand(argv: string[]): Promise<number> {
  const { flags, positional } = parseArgs(argv);
  if (positional.length)
    throw new UsageError('face-match reads {"a": FILE, "b": FILE} JSON lines from stdin');
  const thresholdFlag = flag(flags, 'threshold');
  const threshold = thresholdFlag === undefined ? FACE_MATCH_THRESHOLD : Number(thresholdFlag);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw new UsageError('--threshold must be in 0..1');
  const started = performance.now();
  const analyzer = await createFaceAnalyzer();
  process.stderr.write(`face models ready in ${Math.round(performance.now() - started)} ms\n`);
  const cache = new SideCache(512);
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNo = 0;
  let pairs = 0;
  let failed = 0;
  try {
    for await (const line of rl) {
      lineNo++;
      if (line.trim() === '') continue;
      pairs++;
      const t0 = performance.now();
      let out: Record<string, unknown>;
      let parsed: Partial<FaceMatchIn> = {};
      try {
        const v = JSON.parse(line) as unknown;
        if (v && typeof v === 'object') parsed = v as Partial<FaceMatchIn>;
        validate(v);
        const req = v as FaceMatchIn;
        const a = await analyzeFile(analyzer, cache, 'a', req.a);
        const b = await analyzeFile(analyzer, cache, 'b', req.b);
        // no face on either side: nothing to compare, score null and never a match
        const score = a.embedding && b.embedding ? faceSimilarity(a.embedding, b.embedding) : null;
        out = {
          ...(req.ref !== undefined ? { ref: req.ref } : {}),
          a: req.a,
          b: req.b,
          score,
          match: score !== null && score >= threshold,
          faces_a: a.faces,
          faces_b: b.faces,
          liveness_a: a.liveness,
          liveness_b: b.liveness,
          took_ms: Math.round(performance.now() - t0),
        };
      } catch (err) {
        failed++;
        out = {
          line: lineNo,
          ...(typeof parsed.ref === 'string' ? { ref: parsed.ref } : {}),
          ...(typeof parsed.a === 'string' ? { a: parsed.a } : {}),
          ...(typeof parsed.b === 'string' ? { b: parsed.b } : {}),
          error: lineError(err),
        };
      }
      process.stdout.write(`${JSON.stringify(out)}\n`);
    }
  } finally {
    await analyzer.close();
  }
  // the rule of screen and compare: 1 when a line failed, their count on stderr
  if (failed) process.stderr.write(`${failed} of ${pairs} pairs failed (see their "error" lines)\n`);
  return failed ? 1 : 0;
}
