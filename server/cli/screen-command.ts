// Offline commands: they read lists from disk and screen in this process. No database, Redis or NATS.
import { createInterface } from 'node:readline';
import { AML_DATASETS, type AmlDataset, type Entity } from '../../ingest/entity.js';
import { FORMATS, readSource } from '../../ingest/index.js';
import { buildIndex, compare, DEFAULT_POLICY, indexStats, openIndex } from '../../matcher/index.js';
import type { ScreenSubject } from '../../matcher/types.js';
import { CompareIn, SubjectIn } from '../../schemas/subjects.js';
import { ValidationError } from '../errors.js';
import { compileValidator } from '../http/validation.js';
import { flag, parseArgs, UsageError } from './args.js';

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

async function* lines(): AsyncGenerator<string> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of rl) if (line.trim() !== '') yield line;
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
  for (const spec of lists) {
    const i = spec.indexOf(':');
    const format = i > 0 ? spec.slice(0, i) : '';
    const path = i > 0 ? spec.slice(i + 1) : '';
    if (!FORMATS.includes(format) || !path) {
      throw new UsageError(
        `--list must be <format>:<path> with format one of ${FORMATS.join(', ')}; got "${spec}"`,
      );
    }
    for await (const e of readSource(format, path, () => {
      issues++;
    })) {
      entities.push(e);
    }
  }
  const data = buildIndex(entities, 'cli');
  const stats = indexStats(data);
  process.stderr.write(
    `index: ${stats.entities} entities, ${stats.names} names, ${(stats.bytes / 1048576).toFixed(1)} MiB, ` +
      `${issues} ingest issues, ready in ${Math.round(performance.now() - started)} ms\n`,
  );
  const screener = openIndex(data);
  const policy = { ...DEFAULT_POLICY };
  let n = 0;
  for await (const line of lines()) {
    const t0 = performance.now();
    let out: unknown;
    try {
      const subject = JSON.parse(line) as unknown;
      validateSubject(subject);
      const s = subject as ScreenSubject & { reference_id?: string };
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
        })),
        took_ms: Math.round((performance.now() - t0) * 1000) / 1000,
      };
    } catch (err) {
      out = { ref: refOf(line), error: lineError(err) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
    n++;
    if (process.stderr.isTTY && n % 1000 === 0) process.stderr.write(`\r${n} screened`);
  }
  if (process.stderr.isTTY && n >= 1000) process.stderr.write('\n');
  return 0;
}

export async function compareCommand(_argv: string[]): Promise<number> {
  for await (const line of lines()) {
    let out: unknown;
    try {
      const v = JSON.parse(line) as unknown;
      validateCompare(v);
      const c = v as { schema?: string; a: string | ScreenSubject; b: string | ScreenSubject };
      const { score } = compare(c.schema ?? 'Person', c.a, c.b);
      out = { score, match: score >= DEFAULT_POLICY.review_threshold };
    } catch (err) {
      out = { ref: refOf(line), error: lineError(err) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
  return 0;
}
