import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FORMATS, listBytesRead, pathBytes } from '../../ingest/index.js';
import { createApp } from '../app.js';
import { loadConfig } from '../config.js';
import { createVersion, type VersionRow } from '../datasets/dataset-store.js';
import { buildVersion, promote as promoteVersion } from '../datasets/lifecycle.js';
import { CliError, flag, parseArgs, UsageError } from './args.js';
import { progress } from './progress.js';

/** Parses a list into a new dataset version in this process (sources stored as file:// URIs); --promote then takes
 * the lifecycle's one promotion path, like the admin API: commit, announce, monitor delta owed until queued. */
export async function ingestCommand(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv);
  const format = flag(flags, 'format');
  const source = flag(flags, 'source');
  if (!format || !source) throw new UsageError('ingest needs --format <format> --source <path>');
  if (!FORMATS.includes(format))
    throw new UsageError(`unknown --format "${format}"; known: ${FORMATS.join(', ')}`);
  const path = resolve(source);
  const name = flag(flags, 'name') ?? `${format}:${basename(path)}`;
  const promote = flag(flags, 'promote') === 'true';
  // a missing source is one line before anything starts
  const sourceBytes = await pathBytes(path).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(
      `--source ${source}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`,
    );
  });
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const app = await createApp(config);
  try {
    const created = await createVersion(app.sql, {
      name,
      sources: [{ format, uri: pathToFileURL(path).toString() }],
    });
    let version: VersionRow;
    const bar = progress();
    const readFrom = listBytesRead();
    const PHASES = { reading: 'reading', indexing: 'indexing', storing: 'storing the index' } as const;
    try {
      version = await buildVersion(app, created.id, {
        onProgress: ({ phase, entities }) =>
          bar.update({
            phase: PHASES[phase],
            count: entities,
            noun: 'entities',
            fraction:
              phase === 'reading' && sourceBytes ? (listBytesRead() - readFrom) / sourceBytes : undefined,
          }),
      });
    } catch (err) {
      bar.end();
      process.stderr.write(`dataset version ${created.id} "${name}" failed: ${(err as Error).message}\n`);
      return 1;
    }
    bar.end();
    if (promote) version = (await promoteVersion(app, version.id)).version;
    const s = version.stats;
    for (const i of s.first_issues ?? []) {
      process.stderr.write(`issue: ${i.file}:${i.line}${i.field ? ` [${i.field}]` : ''} ${i.message}\n`);
    }
    if ((s.issues ?? 0) > (s.first_issues?.length ?? 0)) {
      process.stderr.write(`… ${(s.issues ?? 0) - (s.first_issues?.length ?? 0)} more issues\n`);
    }
    const bySchema = Object.entries(s.by_schema ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    process.stdout.write(
      `dataset version ${version.id} "${name}" ready${promote ? ' and promoted (active)' : ''}\n` +
        `entities: ${s.entities} (${bySchema})\nnames: ${s.names}\nissues: ${s.issues}\nbuild_ms: ${s.build_ms}\n`,
    );
    return 0;
  } finally {
    await app.shutdown();
  }
}
