import { CHIP_DOC_TYPES } from '../../schemas/chips.js';
import {
  missingApplicantInputs,
  presenceInRow,
  type StoredApplicantInputs,
} from '../applicants/applicant-intake.js';
import type { Sql, Tx } from '../db/sql.js';
import { ANALYSED_DOC_TYPES } from '../documents/document-service.js';
import { awaitingSubmission } from '../journey/journey-store.js';
import { type FrameRow, selfieInputReady } from '../liveness/challenge-frames.js';
import type { TemplateRow } from '../templates/template-store.js';
import type { FlowRow } from './flow-model.js';

/**
 * What a flow still lacks before its checks can run, in journey order: the applicant's own inputs (`consent`, each
 * missing intake field by name: server/applicants/applicant-intake.ts), then the uploads (`document`, `selfie`).
 */
export type InputTemplate = Pick<
  TemplateRow,
  'required_checks' | 'required_documents' | 'intake_fields' | 'passport_nfc_behavior'
>;

/** The applicant columns the missing inputs are read from. */
export const applicantInputColumns = (sql: Sql | Tx) => sql`
  legal_name_first, legal_name_middle, legal_name_last, business_name, dob, nationality,
  email_hash, phone_hash, tax_id_hash, address, consent`;

/** `document` while a required_documents entry is not met by `docs`, `selfie` while a selfie template has neither a
 * selfie nor a liveness challenge with every frame (server/liveness/challenge-frames.ts). */
export function unmetUploads(
  docs: readonly (Partial<FrameRow> & { doc_type: string; side: string })[],
  template: Pick<TemplateRow, 'required_checks' | 'required_documents'>,
): string[] {
  const missing: string[] = [];
  const docsMet = template.required_documents.every(
    (r) =>
      docs.filter(
        (d) =>
          d.doc_type !== 'selfie' &&
          (!r.types?.length || r.types.includes(d.doc_type as never)) &&
          (!r.side || r.side === d.side),
      ).length >= (r.min ?? 1),
  );
  if (!docsMet) missing.push('document');
  if (template.required_checks.includes('selfie') && !selfieInputReady(docs)) missing.push('selfie');
  return missing;
}

/** The uploads a flow lacks: counted once verified and read by the identity worker (or of a type it does not read,
 * like proof_of_address); and `document_chip` while a template with passport_nfc_behavior `required` and the
 * document check has a passport or ID card but no checked chip. */
export async function missingUploads(
  sql: Sql,
  flow: Pick<FlowRow, 'id' | 'tenant_id'>,
  template: Pick<TemplateRow, 'required_checks' | 'required_documents' | 'passport_nfc_behavior'>,
): Promise<string[]> {
  if (!template.required_documents.length && !template.required_checks.includes('selfie')) return [];
  const docs = await sql<(FrameRow & ChipState)[]>`
    select d.doc_type, d.side, d.upload_status,
           exists(select 1 from document_readings r where r.document_id = d.id) as analysed,
           d.liveness_challenge_id, d.pose, c.poses as challenge_poses,
           (select case when k.checked_at is null then 'checking' else 'checked' end
            from document_chips k where k.document_id = d.id) as chip
    from documents d left join liveness_challenges c on c.id = d.liveness_challenge_id
    where d.tenant_id = ${flow.tenant_id} and d.flow_id = ${flow.id}
    order by d.seq desc`;
  const ready = docs.filter(
    (d) => d.upload_status === 'verified' && (d.analysed || !ANALYSED_DOC_TYPES.has(d.doc_type)),
  );
  const missing = unmetUploads(ready, template);
  if (chipAwaited(template, docs, ready)) missing.push('document_chip');
  return missing;
}

interface ChipState {
  doc_type: string;
  side: string;
  upload_status: string;
  analysed: boolean;
  /** null: no chip data submitted for the document */
  chip: 'checking' | 'checked' | null;
}

/** A chip is awaited while one submitted for any document of the flow is still being verified (it is used when
 * sent, whatever passport_nfc_behavior); and, on a template that requires one, while the flow's ready identity
 * documents include a passport or ID card but none has a checked chip. */
function chipAwaited(
  template: Pick<TemplateRow, 'required_checks' | 'passport_nfc_behavior'>,
  docs: readonly ChipState[],
  ready: readonly ChipState[],
): boolean {
  if (!template.required_checks.includes('document')) return false;
  if (docs.some((d) => d.chip === 'checking')) return true;
  if (template.passport_nfc_behavior !== 'required') return false;
  const chipDocs = ready.filter((d) => CHIP_DOC_TYPES.has(d.doc_type));
  return chipDocs.length > 0 && !chipDocs.some((d) => d.chip === 'checked');
}

/** Every input a flow lacks: its applicant's (consent, intake fields), then its uploads, then `submission` while an
 * applicant session collects them and has not submitted (server/journey/journey-store.ts, awaitingSubmission). */
export async function missingInputs(
  sql: Sql,
  flow: Pick<FlowRow, 'id' | 'tenant_id' | 'applicant_id'>,
  template: InputTemplate,
): Promise<string[]> {
  const [a] = await sql<StoredApplicantInputs[]>`
    select ${applicantInputColumns(sql)} from applicants
    where id = ${flow.applicant_id} and tenant_id = ${flow.tenant_id}`;
  const own = a ? missingApplicantInputs(template, a.consent, presenceInRow(a)) : [];
  const [uploads, waits] = await Promise.all([
    missingUploads(sql, flow, template),
    awaitingSubmission(sql, flow.id),
  ]);
  return [...own, ...uploads, ...(waits ? ['submission'] : [])];
}
