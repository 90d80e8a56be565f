// The self-serve allowance of checks, in one place. A self-serve tenant pays one unit per check it asks for (a sync
// flow, POST /process, an AML rerun, each record of a batch, each monitor run), consumed atomically so that concurrent
// requests can never overdraw, and in the caller's transaction when the work is stored there (so work that is not
// stored costs nothing). A unit is given back when the work it paid for could not run. Contract tenants are not
// metered: consuming succeeds and refunding does nothing.
import type { Sql, Tx } from '../db/sql.js';
import { AllowanceExhausted } from '../domain-errors.js';

/** Consumes `units` at once, all or nothing; AllowanceExhausted (402) when the allowance does not cover them (its
 * message counts what a batch needs when `batch`). */
export async function consumeAllowance(
  sql: Sql | Tx,
  tenantId: string,
  units = 1,
  opts: { batch?: boolean } = {},
): Promise<void> {
  if (await tryConsumeAllowance(sql, tenantId, units)) return;
  const [t] = await sql<{ allowance: number; consumed: number }[]>`
    select allowance, consumed from tenants where id = ${tenantId}`;
  const details = { allowance: t?.allowance ?? 0, consumed: t?.consumed ?? 0 };
  throw new AllowanceExhausted(
    !opts.batch
      ? 'The self-serve allowance of checks is used up; contact sales to move to a contract plan'
      : `The batch needs ${units} checks; the self-serve allowance has ${details.allowance - details.consumed} left`,
    details,
  );
}

/** Consumes `units` when the allowance covers them: false when it does not (nothing is consumed then); true for a
 * contract tenant. */
export async function tryConsumeAllowance(sql: Sql | Tx, tenantId: string, units = 1): Promise<boolean> {
  const [r] = await sql<{ plan: string; charged: boolean }[]>`
    with charged as (
      update tenants set consumed = consumed + ${units}
      where id = ${tenantId} and plan = 'self_serve' and consumed + ${units} <= allowance returning id
    )
    select plan, exists (select 1 from charged) as charged from tenants where id = ${tenantId}`;
  return r?.plan !== 'self_serve' || r.charged === true;
}

/** Gives `units` back (never below zero) after the work they paid for could not run. */
export async function refundAllowance(sql: Sql | Tx, tenantId: string, units = 1): Promise<void> {
  await sql`
    update tenants set consumed = greatest(consumed - ${units}, 0)
    where id = ${tenantId} and plan = 'self_serve'`;
}
