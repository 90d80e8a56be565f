import {
  missingApplicantInputs,
  presenceInRow,
  type StoredApplicantInputs,
} from '../applicants/applicant-intake.js';
import type { Sql, Tx } from '../db/sql.js';
import { ANALYSED_DOC_TYPES } from '../documents/document-service.js';
import { type FrameRow, selfieInputReady } from '../liveness/challenge-frames.js';
import type { TemplateRow } from '../templates/template-store.js';
import type { FlowRow } from './flow-model.js';

/**
 * What a flow still lacks before its checks can run, in journey order: the applicant's own inputs (`consent`, each
 * missing intake field by name: server/applicants/applicant-intake.ts), then the uploads (`document`, `selfie`).
 */
export type InputTemplate = Pick<TemplateRow, 'required_checks' | 'required_documents' | 'intake_fields'>;

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
 * like proof_of_address). */
export async function missingUploads(
  sql: Sql,
  flow: Pick<FlowRow, 'id' | 'tenant_id'>,
  template: Pick<TemplateRow, 'required_checks' | 'required_documents'>,
): Promise<string[]> {
  if (!template.required_documents.length && !template.required_checks.includes('selfie')) return [];
  const docs = await sql<(FrameRow & { side: string; analysed: boolean })[]>`
    select d.doc_type, d.side, exists(select 1 from document_readings r where r.document_id = d.id) as analysed,
           d.liveness_challenge_id, d.pose, c.poses as challenge_poses
    from documents d left join liveness_challenges c on c.id = d.liveness_challenge_id
    where d.tenant_id = ${flow.tenant_id} and d.flow_id = ${flow.id} and d.upload_status = 'verified'
    order by d.seq desc`;
  return unmetUploads(
    docs.filter((d) => d.analysed || !ANALYSED_DOC_TYPES.has(d.doc_type)),
    template,
  );
}

/** Every input a flow lacks: its applicant's (consent, intake fields), then its uploads. */
export async function missingInputs(
  sql: Sql,
  flow: Pick<FlowRow, 'id' | 'tenant_id' | 'applicant_id'>,
  template: InputTemplate,
): Promise<string[]> {
  const [a] = await sql<StoredApplicantInputs[]>`
    select ${applicantInputColumns(sql)} from applicants
    where id = ${flow.applicant_id} and tenant_id = ${flow.tenant_id}`;
  const own = a ? missingApplicantInputs(template, a.consent, presenceInRow(a)) : [];
  return [...own, ...(await missingUploads(sql, flow, template))];
}
