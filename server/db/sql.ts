import postgres from 'postgres';

export type Sql = postgres.Sql;

export function connectSql(url: string, max = 10): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    idle_timeout: 30,
    connect_timeout: 10,
    transform: { undefined: null },
  });
}

/** Creates the database named in url when it does not exist (development convenience, spec'd by the foundation issue). */
export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!name) return;
  u.pathname = '/postgres';
  const admin = postgres(u.toString(), { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) {
      try {
        await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
      } catch (err) {
        // a concurrent process may have created it between our check and create
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}
