import { basename, resolve } from 'node:path';
import { FORMATS } from '../../ingest/index.js';
import { loadConfig } from '../config.js';
import { ingestVersion } from '../datasets/dataset-store.js';
import { migrate } from '../db/migrate.js';
import { connectSql, ensureDatabase } from '../db/sql.js';
import { flag, parseArgs, UsageError } from './args.js';

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
  const config = loadConfig();
  await ensureDatabase(config.DATABASE_URL);
  const sql = connectSql(config.DATABASE_URL, 2);
  try {
    await migrate(sql);
    const res = await ingestVersion(sql, { name, sources: [{ format, uri: path }], promote }, (n) => {
      if (process.stderr.isTTY) process.stderr.write(`\r${n} entities…`);
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    for (const i of res.issues.slice(0, 20)) {
      process.stderr.write(`issue: ${i.file}:${i.line}${i.field ? ` [${i.field}]` : ''} ${i.message}\n`);
    }
    if (res.stats.issues > 20) process.stderr.write(`… and ${res.stats.issues - 20} more issues\n`);
    const s = res.stats;
    const bySchema = Object.entries(s.by_schema)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    process.stdout.write(
      `dataset version ${res.version_id} "${name}" ready${res.promoted ? ' and promoted (active)' : ''}\n` +
        `entities: ${s.entities} (${bySchema})\nnames: ${s.names}\nissues: ${s.issues}\nbuild_ms: ${s.build_ms}\n`,
    );
    return 0;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
