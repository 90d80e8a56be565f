import type { Static } from '@sinclair/typebox';
import type { MonitorCreateIn, MonitorOut } from '../../schemas/monitors.js';
import { requireOwnApplicants } from '../applicants/applicant-service.js';
import type { TenantPrincipal } from '../auth/principal.js';
import type { Bus } from '../bus/jetstream.js';
import type { Sql } from '../db/sql.js';
import { checkPolicyFor } from '../policy/check-policy.js';
import { consumeAllowance, refundAllowance } from '../tenants/allowance.js';
import { claimFirstRun, insertMonitor, monitorOut } from './monitor-store.js';

/** A new monitor on the tenant's policy. Its first run (run_immediately, the default) is a check like any other: a
 * self-serve unit, 402 and no monitor when none is left; it is claimed as the scheduler claims a due monitor and
 * queued at once. */
export async function createMonitor(
  deps: { sql: Sql; bus: Bus },
  tenant: TenantPrincipal,
  body: Static<typeof MonitorCreateIn>,
): Promise<MonitorOut> {
  const { sql } = deps;
  if (body.applicant_id) {
    await requireOwnApplicants(sql, tenant.tenant_id, [
      { loc: ['body', 'applicant_id'], applicant_id: body.applicant_id },
    ]);
  }
  const policy = await checkPolicyFor(sql, tenant.tenant_id);
  const runNow = body.run_immediately ?? true;
  const charged = runNow && tenant.plan === 'self_serve';
  if (charged) await consumeAllowance(sql, tenant.tenant_id);
  const interval = body.interval_hours ?? 24;
  const m = await insertMonitor(sql, {
    tenant_id: tenant.tenant_id,
    applicant_id: body.applicant_id ?? null,
    external_id: body.external_id ?? null,
    subjects: body.subjects,
    datasets: body.datasets ?? policy.default_datasets,
    policy_version: policy.policy_version,
    interval_hours: interval,
    next_due_at: runNow ? new Date() : new Date(Date.now() + interval * 3600_000),
  }).catch(async (err: unknown) => {
    if (charged) await refundAllowance(sql, tenant.tenant_id);
    throw err;
  });
  if (runNow && (await claimFirstRun(sql, m.id))) {
    await deps.bus.publishJob(
      'monitor_run',
      { monitor_id: m.id, tenant_id: m.tenant_id },
      `monitor_run:${m.id}:created`,
    );
  }
  return monitorOut(m);
}
