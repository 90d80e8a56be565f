import type { Sql } from './sql.js';

/**
 * The common value of each low-cardinality column that a list endpoint filters on. Their (tenant_id, <column>,
 * seq desc) indexes hold only the rows without it (migration 020: `where <column> <> '<common value>'`), so that the
 * bulk of the rows — every clear sync flow and batch record — writes no entry in them.
 */
export const COMMON_VALUES = {
  checks: { status: 'completed', result: 'clear', decision: 'AUTO_APPROVED', check_type: 'aml_screen' },
  flows: { status: 'APPROVED', decision: 'AUTO_APPROVED', type: 'kyc' },
  applicants: { internal_status: 'active' },
  audit_log: { action: 'createFlow' },
  alerts: { state: 'open' },
} as const;

type Table = keyof typeof COMMON_VALUES;

/**
 * `and <column> = <value>` for a list query. For any value other than the common one it adds the partial index's
 * own predicate as literal text (true for every row the equality keeps), so that the planner can use the index in
 * every plan — a generic plan of the prepared statement, where the value is a parameter, cannot prove
 * `<column> <> '<common value>'` from `<column> = $1`. The common value is answered by (tenant_id, seq desc),
 * newest first, keeping the matching rows (most of them).
 */
export function equalsFilter<T extends Table>(
  sql: Sql,
  table: T,
  column: keyof (typeof COMMON_VALUES)[T] & string,
  value: string,
  alias?: string,
) {
  const common = COMMON_VALUES[table][column] as string;
  const name: string = alias ? `${alias}.${column}` : column;
  // the column, the alias and the common value are the callers' constants, never input
  return value === common
    ? sql`and ${sql(name)} = ${value}`
    : sql`and ${sql(name)} = ${value} and ${sql.unsafe(`${name} <> '${common}'`)}`;
}
