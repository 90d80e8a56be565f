import type { AlertDisposition, AlertState } from '../../schemas/alerts.js';
import { isUuid } from '../db/ids.js';
import type { Sql } from '../db/sql.js';
import { isClosed } from './alert-states.js';

/**
 * Which hits raise an alert: ONE rule for flow checks, batch checks and monitors (docs/decisions/alerts-webhooks.md),
 * applied by the screening recorder (server/checks/recorder.ts).
 *
 * An alert is about a (subject_ref, source entity) pair within a tenant. For a hit on that pair, the newest alert
 * of the pair decides:
 *   - none                      → raise a new alert;
 *   - open / in review / escalated / pending approval:
 *       the entity's list data is unchanged → nothing (an unchanged hit is no new alert);
 *       the entity's list data changed      → no new alert, but the existing alert's evidence is refreshed
 *                                             (a pending four-eyes proposal then becomes stale);
 *   - closed (false positive or true match):
 *       the entity's list data is unchanged → nothing: the false-positive memory;
 *       the entity's list data changed      → raise a new alert.
 * "List data changed" compares fingerprints: md5 of the entity's stored data in the dataset version that matched.
 *
 * Concurrent first screenings of the same subject may each raise an alert (nothing is locked): at worst a
 * duplicate, never a lost alert.
 */

export interface AlertCandidate {
  subject_ref: string;
  /** the entity: a list entry's id, or a consolidated entity's id (matcher/consolidate.ts) */
  source_entity_id: string;
  /** a consolidated entity's entries: the fingerprint is then of all their list data */
  entity_ids?: string[] | undefined;
  /** the dataset version (uuid) the match came from; its data gives the fingerprint */
  dataset_version: string | null;
}

export type AlertVerdict =
  | { kind: 'raise'; fingerprint: string | null }
  | { kind: 'skip'; fingerprint: string | null; alert_id: string | null }
  | { kind: 'refresh'; fingerprint: string; alert_id: string; alert: LastAlert };

/** The newest alert of a (subject, entity) pair, as the memory reads it. */
export interface LastAlert {
  id: string;
  state: AlertState;
  fp: string | null;
  check_id: string;
  assigned_to: string | null;
  disposition: AlertDisposition | null;
}

/** The rule above, for one pair. */
export function verdictFor(last: LastAlert | undefined, fingerprint: string | null): AlertVerdict {
  if (!last) return { kind: 'raise', fingerprint };
  const changed = last.fp !== fingerprint;
  if (isClosed(last.state)) return changed ? { kind: 'raise', fingerprint } : skip(last, fingerprint);
  if (changed && fingerprint !== null)
    return { kind: 'refresh', fingerprint, alert_id: last.id, alert: last };
  return skip(last, fingerprint);
}

const skip = (last: LastAlert, fingerprint: string | null): AlertVerdict => ({
  kind: 'skip',
  fingerprint,
  alert_id: last.id,
});

/** Fingerprints already read, keyed `${version}|${entity_id}`. A version's entities are written while it builds and
 * never change once it can be screened against (server/datasets/lifecycle.ts), so a fingerprint read once holds
 * for the life of the process; bounded, oldest first out. Entities not found are not remembered. */
const FINGERPRINTS_KEPT = 50_000;
const knownFingerprints = new Map<string, string>();

function rememberFingerprint(key: string, fp: string): void {
  if (knownFingerprints.size >= FINGERPRINTS_KEPT) {
    const oldest = knownFingerprints.keys().next().value;
    if (oldest !== undefined) knownFingerprints.delete(oldest);
  }
  knownFingerprints.set(key, fp);
}

/** The fingerprint key of a candidate: its version and entity, and for a consolidated entity its entries. */
export const fingerprintKey = (p: {
  dataset_version: string | null;
  source_entity_id: string;
  entity_ids?: string[] | undefined;
}): string =>
  p.entity_ids && p.entity_ids.length > 1
    ? `${p.dataset_version}|${p.source_entity_id}|${[...p.entity_ids].sort().join(',')}`
    : `${p.dataset_version}|${p.source_entity_id}`;

/** Fingerprints of entities' list data, keyed by fingerprintKey: from the process's memory of them, the rest read in
 * at most two queries. A consolidated entity's fingerprint is of its entries' data together (any of them changing
 * changes it). */
export async function entityFingerprints(
  db: Sql,
  pairs: { dataset_version: string | null; source_entity_id: string; entity_ids?: string[] | undefined }[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const wanted: { dataset_version: string; source_entity_id: string }[] = [];
  const groups: { key: string; dataset_version: string; entity_ids: string[] }[] = [];
  for (const p of pairs) {
    if (!isUuid(p.dataset_version ?? '')) continue;
    const key = fingerprintKey(p);
    if (p.entity_ids && p.entity_ids.length > 1) {
      const known = knownFingerprints.get(key);
      if (known !== undefined) out.set(key, known);
      else groups.push({ key, dataset_version: p.dataset_version!, entity_ids: p.entity_ids });
      continue;
    }
    const known = knownFingerprints.get(key);
    if (known !== undefined) out.set(key, known);
    else wanted.push(p as { dataset_version: string; source_entity_id: string });
  }
  if (groups.length) {
    const keys = groups.flatMap((g) => g.entity_ids.map(() => g.key));
    const rows = await db<{ key: string; fp: string }[]>`
      select v.key, md5(string_agg(md5(e.data::text), ',' order by e.entity_id)) as fp
      from unnest(${keys}::text[], ${groups.flatMap((g) => g.entity_ids.map(() => g.dataset_version))}::uuid[],
        ${groups.flatMap((g) => g.entity_ids)}::text[]) as v(key, version_id, entity_id)
      join dataset_entities e on e.version_id = v.version_id and e.entity_id = v.entity_id
      group by v.key`;
    for (const r of rows) {
      out.set(r.key, r.fp);
      rememberFingerprint(r.key, r.fp);
    }
  }
  if (!wanted.length) return out;
  const rows = await db<{ version_id: string; entity_id: string; fp: string }[]>`
    select e.version_id::text as version_id, e.entity_id, md5(e.data::text) as fp
    from dataset_entities e
    join unnest(${wanted.map((p) => p.dataset_version)}::uuid[], ${wanted.map((p) => p.source_entity_id)}::text[])
      as v(version_id, entity_id) on e.version_id = v.version_id and e.entity_id = v.entity_id`;
  for (const r of rows) {
    const key = `${r.version_id}|${r.entity_id}`;
    out.set(key, r.fp);
    rememberFingerprint(key, r.fp);
  }
  return out;
}

/** The newest alert of each (subject_ref, entity) pair, keyed `${subject_ref}\u0000${entity_id}`. */
async function lastAlerts(
  db: Sql,
  tenantId: string,
  pairs: { subject_ref: string; source_entity_id: string }[],
): Promise<Map<string, LastAlert>> {
  const out = new Map<string, LastAlert>();
  if (!pairs.length) return out;
  const rows = await db<(LastAlert & { subject_ref: string; source_entity_id: string })[]>`
    select distinct on (al.subject_ref, al.source_entity_id)
      al.id, al.subject_ref, al.source_entity_id, al.state, al.evidence->>'entity_fingerprint' as fp,
      al.check_id, al.assigned_to, al.disposition
    from alerts al
    join unnest(${pairs.map((p) => p.subject_ref)}::text[], ${pairs.map((p) => p.source_entity_id)}::text[])
      as v(subject_ref, entity_id) on al.subject_ref = v.subject_ref and al.source_entity_id = v.entity_id
    where al.tenant_id = ${tenantId}
    order by al.subject_ref, al.source_entity_id, al.created_at desc, al.seq desc`;
  for (const { subject_ref, source_entity_id, ...last } of rows)
    out.set(pairKey(subject_ref, source_entity_id), last);
  return out;
}

const pairKey = (subjectRef: string, entityId: string) => `${subjectRef}\u0000${entityId}`;

/** Verdicts for many hits at once (at most two queries). Within one call a repeated pair raises at most once.
 * `newSubjects`: subject_refs created by the caller's own request (a new flow's applicant id): no alert can name
 * them yet, so their newest alerts are not read. */
export async function decideAlerts(
  db: Sql,
  tenantId: string,
  candidates: AlertCandidate[],
  newSubjects: ReadonlySet<string> = new Set(),
): Promise<AlertVerdict[]> {
  if (!candidates.length) return [];
  const [fps, last] = await Promise.all([
    entityFingerprints(db, candidates),
    lastAlerts(
      db,
      tenantId,
      candidates.filter((c) => !newSubjects.has(c.subject_ref)),
    ),
  ]);
  const seen = new Set<string>();
  return candidates.map((c) => {
    const fingerprint = fps.get(fingerprintKey(c)) ?? null;
    const key = pairKey(c.subject_ref, c.source_entity_id);
    if (seen.has(key)) return { kind: 'skip', fingerprint, alert_id: null };
    seen.add(key);
    return verdictFor(last.get(key), fingerprint);
  });
}
