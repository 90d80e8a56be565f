import type { Alert } from './api';
import { shortId } from './format';

// Who an alert is about and where it came from, the same way on the queue and on the alert: a flow's applicant, a
// batch record or a monitored subject. The name is the one the check screened (the alert's `subject`, from the
// check's evidence), so batch and monitor alerts, which have no applicant, read by name too.

/** The subject's name: the applicant's current name, else the name as screened, else the stored reference. */
export function alertSubjectName(a: Alert): string {
  return a.applicant?.name ?? a.subject?.name ?? a.subject_ref;
}

/** The customer's own reference for the subject (external_id), when the caller gave one. */
export function alertReference(a: Alert): string | null {
  return a.applicant?.external_id ?? a.check?.reference ?? null;
}

export interface AlertSource {
  kind: 'flow' | 'batch' | 'monitor' | 'other';
  /** e.g. "Flow …1a2b3c4d", "Batch …1a2b3c4d, record 3", "Monitor …1a2b3c4d" */
  label: string;
  /** the dashboard path that shows it, if any */
  path: string | null;
}

/** A batch record by its reference (the CSV's file:line, or the caller's ref), else by its position in the batch
 * (input_ref `<batch id>:<index>`, counted from 1 here). */
function batchRecord(batchId: string, inputRef: string | null | undefined): string | null {
  if (!inputRef) return null;
  const prefix = `${batchId}:`;
  if (!inputRef.startsWith(prefix)) return inputRef;
  const idx = Number(inputRef.slice(prefix.length));
  return Number.isInteger(idx) ? `record ${idx + 1}` : inputRef;
}

export function alertSource(a: Alert): AlertSource {
  if (a.flow_id) return { kind: 'flow', label: `Flow ${shortId(a.flow_id)}`, path: `/flows/${a.flow_id}` };
  if (a.batch_id) {
    const record = batchRecord(a.batch_id, a.check?.input_ref);
    return {
      kind: 'batch',
      label: `Batch ${shortId(a.batch_id)}${record ? `, ${record}` : ''}`,
      path: `/batches/${a.batch_id}`,
    };
  }
  if (a.monitor_id) return { kind: 'monitor', label: `Monitor ${shortId(a.monitor_id)}`, path: '/monitors' };
  return { kind: 'other', label: 'Screening', path: null };
}
