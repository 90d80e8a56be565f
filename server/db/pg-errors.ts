/** Postgres errors as background jobs see them: which ones a retry cannot cure, and what a tenant may read about
 * them. Raw server messages name tables, constraints and values of the schema; they go to the logs, never into a
 * field an API client reads. */

interface PgErrorLike {
  name?: string;
  code?: string;
  constraint_name?: string;
  column_name?: string;
  table_name?: string;
}

function pgError(err: unknown): PgErrorLike | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as PgErrorLike;
  return e.name === 'PostgresError' && typeof e.code === 'string' ? e : undefined;
}

/** Data exceptions (class 22) and integrity constraint violations (class 23) fail the same way on every retry:
 * a foreign key that does not exist, a value out of range, a broken check constraint. Connection loss (08),
 * serialization failures and deadlocks (40), resource shortage (53) and shutdowns (57) are worth retrying. */
export function isPermanentDbError(err: unknown): boolean {
  const e = pgError(err);
  return !!e?.code && (e.code.startsWith('22') || e.code.startsWith('23'));
}

/** A message a tenant may read for a failure: what went wrong in their terms, without schema names or raw SQL. */
export function publicFailureReason(err: unknown, subject?: { applicant_id?: string | null }): string {
  const e = pgError(err);
  if (!e) {
    return err instanceof PublicJobError ? err.message : 'internal error; the operator has been notified';
  }
  if (e.code === '23503' && e.constraint_name?.includes('applicant_id')) {
    return subject?.applicant_id
      ? `applicant_id ${subject.applicant_id} does not exist (erased or never created in this workspace)`
      : 'the referenced applicant does not exist';
  }
  if (e.code === '23503') return 'a referenced record does not exist';
  if (e.code?.startsWith('23')) return 'the record conflicts with stored data and cannot be recorded';
  if (e.code?.startsWith('22')) return 'the record contains a value that cannot be stored';
  return 'temporary storage failure; retries were exhausted';
}

/** An error whose message is written for the tenant (safe to show as a failure reason). */
export class PublicJobError extends Error {}
