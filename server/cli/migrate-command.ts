import { dependency } from '../app.js';
import { loadConfig } from '../config.js';
import { migrate } from '../db/migrate.js';
import { connectSql, ensureDatabase } from '../db/sql.js';

export async function migrateCommand(_argv: string[]): Promise<number> {
  const config = loadConfig();
  await dependency('postgres', () => ensureDatabase(config.DATABASE_URL));
  const sql = connectSql(config.DATABASE_URL, 1);
  try {
    const applied = await migrate(sql);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
