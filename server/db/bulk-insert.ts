import { json, type Tx } from './sql.js';

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
  const cols = tx(columns.map(String));
  await tx`
    insert into ${tx(table)} (${cols})
    select ${cols} from jsonb_populate_recordset(null::${tx(table)}, ${json(tx, rows)})`;
}
