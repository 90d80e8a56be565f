import { randomUUID } from 'node:crypto';
import type { Match } from '../../matcher/types.js';
import { decideAlerts, refreshAlertEvidence } from '../alerts/alert-memory.js';
import { queueSlaAt } from '../alerts/alert-sla.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { type CheckPolicy, checkPolicyFor } from '../policy/check-policy.js';
import { type MonitorRow, subjectRef } from './monitor-store.js';

export interface MonitorScreen {
  dataset_version: string;
  latency_ms: number;
  /** the best match per entity over every subject of the monitor */
  matches: Match[];
  /** set for a promotion rescreen: only entities changed between these versions were screened */
  delta?: { from: string | null; to: string };
}

/** Merges per-subject results: one match per entity, the highest score. */
export function mergeMatches(results: Match[][]): Match[] {
  const best = new Map<string, Match>();
  for (const r of results) {
    for (const m of r) {
      const prev = best.get(m.entity_id);
      if (!prev || m.score > prev.score) best.set(m.entity_id, m);
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}

/** Records a monitor's check and raises alerts for new hits, in one transaction, with the rule shared by every
 * kind of check (server/alerts/alert-memory.ts):
 * - an entity with an open (not closed) alert for this monitor raises nothing (an unchanged hit is no new alert;
 *   a changed entity refreshes that alert's evidence);
 * - an entity whose last alert was closed (false positive or true match) raises nothing unless that entity's list
 *   data changed since (its fingerprint differs): the false-positive memory.
 * Returns the ids of the alerts raised. */
export async function recordMonitorCheck(
  sql: Sql,
  monitor: MonitorRow,
  screen: MonitorScreen,
  policy?: CheckPolicy,
): Promise<{ check_id: string; alerts: string[] }> {
  const p = policy ?? (await checkPolicyFor(sql, monitor.tenant_id));
  const hits = screen.matches.filter((m) => m.score >= m.evidence.threshold);
  const checkId = randomUUID();
  return transaction(sql, async (tx) => {
    const ref = subjectRef(monitor);
    const verdicts = await decideAlerts(
      tx,
      monitor.tenant_id,
      hits.map((h) => ({
        subject_ref: ref,
        source_entity_id: h.entity_id,
        dataset_version: screen.dataset_version,
      })),
    );
    const fingerprints = new Map<string, string | null>();
    const raise: Match[] = [];
    const refresh: { alert_id: string; hit: Match }[] = [];
    hits.forEach((h, i) => {
      const v = verdicts[i];
      fingerprints.set(h.entity_id, v?.fingerprint ?? null);
      if (v?.kind === 'raise') raise.push(h);
      else if (v?.kind === 'refresh') refresh.push({ alert_id: v.alert_id, hit: h });
    });
    await tx`
      insert into checks ${tx({
        id: checkId,
        tenant_id: monitor.tenant_id,
        applicant_id: monitor.applicant_id,
        applicant_name: monitor.subjects[0]?.name ?? null,
        check_type: 'aml_screen',
        status: 'completed',
        result: hits.length ? 'hit' : 'clear',
        decision: hits.length ? 'MANUAL_REVIEW' : 'AUTO_APPROVED',
        mode: 'async',
        use_case: monitor.use_case,
        input_ref: ref,
        reference: monitor.external_id,
        latency_ms: screen.latency_ms,
        dataset_versions: [screen.dataset_version],
        datasets: monitor.datasets,
        policy_version: p.policy_version,
        evidence: json(tx, {
          monitor_id: monitor.id,
          subjects: monitor.subjects,
          algorithm: p.aml_match_policy.algorithm,
          matches: screen.matches,
          ...(screen.delta ? { delta: screen.delta } : {}),
        }),
        alert_count: raise.length,
        completed_at: new Date(),
      })}`;
    const alertIds: string[] = [];
    for (const h of raise) {
      const id = randomUUID();
      alertIds.push(id);
      await tx`
        insert into alerts ${tx({
          id,
          tenant_id: monitor.tenant_id,
          check_id: checkId,
          applicant_id: monitor.applicant_id,
          subject_ref: ref,
          source_entity_id: h.entity_id,
          evidence: json(tx, {
            match: h,
            entity_fingerprint: fingerprints.get(h.entity_id) ?? null,
            dataset_version: screen.dataset_version,
            monitor_id: monitor.id,
          }),
          four_eyes_required: p.four_eyes_required,
          queue_sla_at: queueSlaAt(new Date(), h.datasets, p),
        })}`;
      await tx`
        insert into outbox_events (tenant_id, type, resource_id, payload)
        values (${monitor.tenant_id}, 'alert.created', ${id}, ${tx.json({ alert_id: id, check_id: checkId, monitor_id: monitor.id, state: 'open' })})`;
    }
    for (const r of refresh) {
      await refreshAlertEvidence(
        tx,
        monitor.tenant_id,
        r.alert_id,
        {
          match: r.hit,
          entity_fingerprint: fingerprints.get(r.hit.entity_id) ?? null,
          dataset_version: screen.dataset_version,
          monitor_id: monitor.id,
        },
        checkId,
      );
    }
    if (alertIds.length) {
      await tx`
        insert into outbox_events (tenant_id, type, resource_id, payload)
        values (${monitor.tenant_id}, 'monitor.match', ${monitor.id},
          ${tx.json({ monitor_id: monitor.id, check_id: checkId, alert_ids: alertIds, dataset_version: screen.dataset_version })})`;
    }
    await tx`
      update monitors set last_check_id = ${checkId}, last_checked_at = now(),
        last_dataset_partition = ${screen.dataset_version}, policy_version = ${p.policy_version}, updated_at = now()
      where id = ${monitor.id}`;
    return { check_id: checkId, alerts: alertIds };
  });
}
