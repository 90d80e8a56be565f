import type postgres from 'postgres';
import { json, type Sql, type Tx } from './sql.js';

/**
 * Inserts many rows in one statement with two parameters: the values every row shares (by column: a tenant, a
 * batch, a dataset version…) once, as a JSON object, and each row's own values as a JSON array, expanded by Postgres
 * (jsonb_populate_recordset over the table's row type, the shared values as its base record: a column a row's
 * object lacks takes the base's value; JSON arrays become array columns). No bind parameter per value, one small
 * plan whatever the rows and the columns they share, and no shared value serialised, sent and parsed once per row.
 * For bulk writes (batches). Row triggers, constraints and errors are those of an insert; only the named columns
 * are written, the others take their defaults.
 *
 * Not COPY: postgres.js 3.4.9 never settles a COPY … FROM STDIN stream that the server rejects after its end (a
 * trigger or constraint on the last rows), leaving the transaction open and the caller hanging
 * (porsager/postgres#1173).
 */
export async function insertRows<T>(
  tx: Tx,
  table: string,
  columns: readonly (keyof T & string)[],
  rows: readonly T[],
): Promise<void> {
  if (!rows.length) return;
  const { shared, own } = splitShared(columns, rows);
  await insertRowsStatement(tx, table, columns, own, shared);
}

type Scalar = string | number | boolean | null | undefined;
const isScalar = (v: unknown): v is Scalar => v === null || typeof v !== 'object';

/** Whether two column values serialise to the same JSON: scalars, Dates and arrays of scalars are compared, any
 * other object is taken as different (an evidence document is its row's own). */
function sameValue(a: unknown, b: unknown): boolean {
  if (isScalar(a) || isScalar(b)) return a === b;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!isScalar(a[i]) || a[i] !== b[i]) return false;
  return true;
}

/** The columns' values every row shares (`shared`, once) and each row's other values (`own`, a row's object
 * without the shared columns). A column whose value is the same in every row is shared. */
export function splitShared<T>(
  columns: readonly (keyof T & string)[],
  rows: readonly T[],
): { shared: Partial<T>; own: Partial<T>[] } {
  const first = rows[0];
  const shared: Partial<T> = {};
  const ownColumns: (keyof T & string)[] = [];
  for (const c of columns) {
    const v = first?.[c];
    if (first && rows.every((r) => sameValue(r[c], v))) shared[c] = v;
    else ownColumns.push(c);
  }
  const own = rows.map((r) => {
    const o: Partial<T> = {};
    for (const c of ownColumns) o[c] = r[c];
    return o;
  });
  return { shared, own };
}

/** The same insert as a statement fragment (a data-modifying CTE of a larger statement: the flow graph). Its text
 * depends on the table and columns only (and on whether `shared` is given), never on the number of rows, so one
 * prepared statement serves any number (zero rows insert nothing). A column a row lacks takes its value in `shared`,
 * else null. */
export function insertRowsStatement<T>(
  sql: Sql,
  table: string,
  columns: readonly (keyof T & string)[],
  rows: readonly Partial<T>[],
  shared?: Partial<T>,
): postgres.PendingQuery<postgres.Row[]> {
  const cols = sql(columns.map(String));
  const base = shared
    ? sql`jsonb_populate_record(null::${sql(table)}, ${json(sql, shared)})`
    : sql`null::${sql(table)}`;
  return sql`
    insert into ${sql(table)} (${cols})
    select ${cols} from jsonb_populate_recordset(${base}, ${json(sql, rows)})`;
}
