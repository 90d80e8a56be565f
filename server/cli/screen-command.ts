// Offline commands: they read lists from disk and screen in this process. No database, Redis or NATS.
import { fstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AML_DATASETS, type AmlDataset, type Entity } from '../../ingest/entity.js';
import { FORMATS, listBytesRead, pathBytes, readSource } from '../../ingest/index.js';
import { consolidate } from '../../matcher/consolidate.js';
import { buildIndex, compare, DEFAULT_POLICY, indexStats, openIndex } from '../../matcher/index.js';
import type { ScreenSubject } from '../../matcher/types.js';
import { CompareIn, SubjectIn } from '../../schemas/subjects.js';
import { ValidationError } from '../errors.js';
import { compileValidator } from '../http/validation.js';
import { CliError, flag, parseArgs, UsageError } from './args.js';
import { noProgress, progress } from './progress.js';

const validateSubject = compileValidator(SubjectIn, 'body');
const validateCompare = compileValidator(CompareIn, 'body');

function lineError(err: unknown): { code: string; message: string } {
  if (err instanceof ValidationError)
    return { code: 'validation_failed', message: err.message.replaceAll('body.', '') };
  if (err instanceof SyntaxError) return { code: 'json_invalid', message: err.message };
  return { code: 'internal_error', message: (err as Error).message };
}

function refOf(line: string): string | null {
  try {
    const v = JSON.parse(line) as { ref?: unknown };
    return typeof v.ref === 'string' ? v.ref : null;
  } catch {
    return null;
  }
}

/** The non-blank lines of stdin with their 1-based line numbers (blank lines count, so numbers match the file), and
 * how far through stdin each one is (0..1) when stdin is a file. */
async function* lines(): AsyncGenerator<[line: string, lineNo: number, fraction: number | undefined]> {
  const size = stdinSize();
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  let bytes = 0;
  for await (const line of rl) {
    n++;
    bytes += Buffer.byteLength(line) + 1;
    if (line.trim() !== '') yield [line, n, size ? Math.min(1, bytes / size) : undefined];
  }
}

/** The size of stdin when it is a regular file (`< subjects.jsonl`); undefined for a pipe or a terminal. */
function stdinSize(): number | undefined {
  try {
    const st = fstatSync(0);
    return st.isFile() && st.size > 0 ? st.size : undefined;
  } catch {
    return undefined;
  }
}

type Warning = { field: string; message: string };

/**
 * Validates a subject; a malformed or unknown optional field (a DOB like 1969-7-16) is dropped and reported
 * instead of failing the line, so the name is still screened. A bad name (or a non-object) fails the line.
 */
function subjectOf(value: unknown): {
  subject: ScreenSubject & { reference_id?: string };
  warnings: Warning[];
} {
  try {
    validateSubject(value);
    return { subject: value as ScreenSubject, warnings: [] };
  } catch (err) {
    if (!(err instanceof ValidationError) || !value || typeof value !== 'object' || Array.isArray(value))
      throw err;
    const fields = new Set<string>();
    for (const i of err.issues) {
      const f = i.loc[1];
      if (typeof f !== 'string' || f === 'name') throw err;
      fields.add(f);
    }
    const rest: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const f of fields) delete rest[f];
    validateSubject(rest);
    const warnings = err.issues.map((i) => ({
      field: i.loc.slice(1).join('.'),
      message: `${i.msg}; ignored`,
    }));
    return { subject: rest as unknown as ScreenSubject, warnings };
  }
}

function summary(failed: number, n: number, what: string): void {
  if (failed) process.stderr.write(`${failed} of ${n} ${what} failed (see their "error" lines)\n`);
}

export async function screenCommand(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv);
  const lists = flags.list ?? [];
  if (!lists.length) throw new UsageError('screen needs at least one --list <format>:<path>');
  const threshold = Number(flag(flags, 'threshold') ?? DEFAULT_POLICY.review_threshold);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw new UsageError('--threshold must be in 0..1');
  const limit = Number(flag(flags, 'limit') ?? 5);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new UsageError('--limit must be an integer 1..100');
  const dsFlag = flag(flags, 'datasets');
  const datasets = (dsFlag ? dsFlag.split(',').map((d) => d.trim()) : [...AML_DATASETS]) as AmlDataset[];
  for (const d of datasets) {
    if (!(AML_DATASETS as readonly string[]).includes(d)) {
      throw new UsageError(`unknown dataset "${d}"; known: ${AML_DATASETS.join(', ')}`);
    }
  }

  const started = performance.now();
  const entities: Entity[] = [];
  let issues = 0;
  const specs: { spec: string; format: string; path: string }[] = [];
  for (const spec of lists) {
    const i = spec.indexOf(':');
    const format = i > 0 ? spec.slice(0, i) : '';
    const path = i > 0 ? spec.slice(i + 1) : '';
    if (!FORMATS.includes(format) || !path) {
      throw new UsageError(
        `--list must be <format>:<path> with format one of ${FORMATS.join(', ')}; got "${spec}"`,
      );
    }
    await stat(path).catch((err: NodeJS.ErrnoException) => {
      throw new CliError(
        `--list ${spec}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`,
      );
    });
    specs.push({ spec, format, path });
  }
  const bar = progress();
  const listBytes = (await Promise.all(specs.map((s) => pathBytes(s.path)))).reduce((a, b) => a + b, 0);
  const readFrom = listBytesRead();
  for (const { format, path } of specs) {
    for await (const e of readSource(format, path, () => {
      issues++;
    })) {
      entities.push(e);
      if (entities.length % 500 === 0) {
        const fraction = listBytes ? (listBytesRead() - readFrom) / listBytes : undefined;
        bar.update({ phase: 'reading lists', count: entities.length, noun: 'entities', fraction });
      }
    }
  }
  bar.update({ phase: 'linking', count: entities.length, noun: 'entities' });
  // entries of several lists that are the same entity: one match each, as the service screens
  const consolidation = consolidate(entities);
  bar.update({ phase: 'indexing', count: entities.length, noun: 'entities' });
  const data = buildIndex(entities, 'cli', consolidation.clusterOf);
  bar.end();
  const stats = indexStats(data);
  process.stderr.write(
    `index: ${stats.entities} entities (${consolidation.entities_after} after linking ${consolidation.links.length} ` +
      `across lists), ${stats.names} names, ${(stats.bytes / 1048576).toFixed(1)} MiB, ` +
      `${issues} ingest issues, ready in ${Math.round(performance.now() - started)} ms\n`,
  );
  const screener = openIndex(data);
  const policy = { ...DEFAULT_POLICY };
  let n = 0;
  let failed = 0;
  let warned = 0;
  // results on the terminal show their own progress (a bar would be torn by them)
  const screening = process.stdout.isTTY ? noProgress : progress();
  for await (const [line, lineNo, fraction] of lines()) {
    const t0 = performance.now();
    let out: unknown;
    try {
      const { subject: s, warnings } = subjectOf(JSON.parse(line) as unknown);
      if (warnings.length) warned++;
      const res = screener.screen(s, { datasets, policy, limit, min_score: threshold });
      out = {
        ref: s.ref ?? s.reference_id ?? null,
        matches: res.matches.map((m) => ({
          entity_id: m.entity_id,
          source: m.source,
          source_id: m.source_id,
          schema: m.schema,
          name: m.name,
          score: m.score,
          datasets: m.datasets,
          evidence: m.evidence,
          // one match per entity: every list entry of it, each with its own score and best-matching name
          consolidated_id: m.consolidated_id,
          sources: m.sources.map((x) => ({
            entity_id: x.entity_id,
            source: x.source,
            source_id: x.source_id,
            name: x.name,
            score: x.score,
            programs: x.programs,
            matched_name: x.matched_name,
          })),
        })),
        took_ms: Math.round((performance.now() - t0) * 1000) / 1000,
        ...(warnings.length ? { line: lineNo, warnings } : {}),
      };
    } catch (err) {
      failed++;
      out = { ref: refOf(line), line: lineNo, error: lineError(err) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
    n++;
    screening.update({ phase: 'screening', count: n, noun: 'subjects', fraction });
  }
  screening.end();
  if (warned) process.stderr.write(`${warned} of ${n} subjects had ignored fields (see their "warnings")\n`);
  summary(failed, n, 'subjects');
  return failed ? 1 : 0;
}

export async function compareCommand(_argv: string[]): Promise<number> {
  let n = 0;
  let failed = 0;
  for await (const [line, lineNo] of lines()) {
    n++;
    let out: unknown;
    try {
      const v = JSON.parse(line) as unknown;
      validateCompare(v);
      const c = v as { schema?: string; a: string | ScreenSubject; b: string | ScreenSubject };
      const { score } = compare(c.schema ?? 'Person', c.a, c.b);
      out = { score, match: score >= DEFAULT_POLICY.review_threshold };
    } catch (err) {
      failed++;
      out = { ref: refOf(line), line: lineNo, error: lineError(err) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
  summary(failed, n, 'pairs');
  return failed ? 1 : 0;
}
