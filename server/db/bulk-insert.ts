import type postgres from 'postgres';
import { json, type Sql, type Tx } from './sql.js';

/**
 * Inserts many rows in one statement with one parameter: the rows as a JSON array, expanded by Postgres
 * (jsonb_populate_recordset over the table's row type; JSON arrays become array columns). No bind parameter per
 * value and one small plan, for bulk writes (batches). Row triggers, constraints and errors are those of an insert;
 * only the named columns are written, the others take their defaults.
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
  await insertRowsStatement(tx, table, columns, rows);
}

/** The same insert as a statement fragment (a data-modifying CTE of a larger statement: the flow graph). Its text
 * depends on the table and columns only, never on the number of rows, so one prepared statement serves any number
 * (zero rows insert nothing). A column a row lacks is written as null. */
export function insertRowsStatement<T>(
  sql: Sql,
  table: string,
  columns: readonly (keyof T & string)[],
  rows: readonly T[],
): postgres.PendingQuery<postgres.Row[]> {
  const cols = sql(columns.map(String));
  return sql`
    insert into ${sql(table)} (${cols})
    select ${cols} from jsonb_populate_recordset(null::${sql(table)}, ${json(sql, rows)})`;
}
