/**
 * queue_sla_at: when an alert counts as overdue (docs/decisions/alerts-webhooks.md, "queue_sla_at"). Computed once, when the alert is
 * raised, from the datasets of the matched entity: the shortest applicable window wins.
 *
 * Policy-free defaults: sanctions, wanted and crypto_wallets 24 h (a possible sanctions hit blocks money
 * movement: regulators expect same-day handling); every other dataset (pep, pep_rca, debarment, soe) 72 h.
 * A check policy may carry `alert_sla_hours` ({dataset: hours}) to override them; the policy schema does not
 * expose it yet, so today the defaults apply.
 */
export const DEFAULT_ALERT_SLA_HOURS: Readonly<Record<string, number>> = Object.freeze({
  sanctions: 24,
  wanted: 24,
  crypto_wallets: 24,
  pep: 72,
  pep_rca: 72,
  debarment: 72,
  soe: 72,
});
export const FALLBACK_ALERT_SLA_HOURS = 72;

export function alertSlaHours(datasets: readonly string[] | undefined, policy?: unknown): number {
  const overrides =
    (policy as { alert_sla_hours?: Record<string, number> } | undefined)?.alert_sla_hours ?? {};
  const hours = (datasets ?? [])
    .map((d) => overrides[d] ?? DEFAULT_ALERT_SLA_HOURS[d])
    .filter((h): h is number => typeof h === 'number' && h > 0);
  return hours.length ? Math.min(...hours) : FALLBACK_ALERT_SLA_HOURS;
}

export function queueSlaAt(raisedAt: Date, datasets: readonly string[] | undefined, policy?: unknown): Date {
  return new Date(raisedAt.getTime() + alertSlaHours(datasets, policy) * 3600_000);
}
