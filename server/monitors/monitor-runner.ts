import type { CheckOutcome } from '../checks/check-type.js';
import { buildCheck, recordChecks } from '../checks/recorder.js';
import { type Sql, transaction } from '../db/sql.js';
import { writeEvent } from '../outbox/outbox.js';
import type { CheckPolicy } from '../policy/check-policy.js';
import { type MonitorRow, subjectRef } from './monitor-store.js';

/** Records a monitor's screening with the screening recorder (server/checks/recorder.ts): decided by the tenant's
 * policy, alerts raised with the false-positive memory shared by every kind of check, in one transaction with the
 * monitor.match event and the monitor's bookkeeping. `delta` is set for a promotion rescreen (only entities changed
 * between these versions were screened). Returns the ids of the alerts raised. */
export async function recordMonitorCheck(
  sql: Sql,
  monitor: MonitorRow,
  outcome: CheckOutcome,
  policy: CheckPolicy,
  delta?: { from: string | null; to: string },
): Promise<{ check_id: string; alerts: string[] }> {
  const ref = subjectRef(monitor);
  const record = buildCheck(
    { ...outcome, evidence: { ...outcome.evidence, monitor_id: monitor.id, ...(delta ? { delta } : {}) } },
    {
      tenant_id: monitor.tenant_id,
      policy,
      mode: 'async',
      monitor_id: monitor.id,
      applicant_id: monitor.applicant_id,
      applicant_name: monitor.subjects[0]?.name ?? null,
      reference: monitor.external_id,
      subject_ref: ref,
      input_ref: ref,
      use_case: monitor.use_case,
    },
  );
  const checkId = record.check.id;
  const version = outcome.dataset_versions[0] ?? '';
  return transaction(sql, async (tx) => {
    await recordChecks(tx, [record]);
    const alertIds = record.alerts.map((a) => a.id);
    if (alertIds.length) {
      await writeEvent(tx, monitor.tenant_id, 'monitor.match', monitor.id, {
        monitor_id: monitor.id,
        check_id: checkId,
        alert_ids: alertIds,
        dataset_version: version,
      });
    }
    await tx`
      update monitors set last_check_id = ${checkId}, last_checked_at = now(),
        last_dataset_partition = ${version}, policy_version = ${policy.policy_version}, updated_at = now()
      where id = ${monitor.id}`;
    return { check_id: checkId, alerts: alertIds };
  });
}
