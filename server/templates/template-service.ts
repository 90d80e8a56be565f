import type { FlowDecision } from '../../schemas/flows.js';
import type {
  FlowTemplateCreateIn,
  FlowTemplateOut,
  FlowTemplatePatchIn,
  RequiredDocument,
} from '../../schemas/templates.js';
import { isChecksOnly } from '../checks/registry.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { NotFound, StateConflict } from '../domain-errors.js';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { type TemplateRow, templateById } from './template-store.js';

export function templateOut(t: TemplateRow): FlowTemplateOut {
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    description: t.description,
    archived_at: t.archived_at?.toISOString() ?? null,
    required_checks: t.required_checks as FlowTemplateOut['required_checks'],
    allowed_document_types: t.allowed_document_types as FlowTemplateOut['allowed_document_types'],
    allowed_issuing_countries: t.allowed_issuing_countries ?? [],
    default_datasets: t.default_datasets as FlowTemplateOut['default_datasets'],
    document_capture_mode: t.document_capture_mode as FlowTemplateOut['document_capture_mode'],
    passport_nfc_behavior: t.passport_nfc_behavior as FlowTemplateOut['passport_nfc_behavior'],
    intake_fields: t.intake_fields as FlowTemplateOut['intake_fields'],
    required_documents: t.required_documents,
    default_decision: t.default_decision,
    checks_only: isChecksOnly(t),
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
  };
}

interface TemplateShape {
  required_checks: string[];
  allowed_document_types: string[];
  required_documents: RequiredDocument[];
}

/** Rules across fields: documents are required exactly when a document check is; required document types must be
 * allowed ones (when an allowlist is set). */
function validateShape(t: TemplateShape): void {
  const issues: ValidationIssue[] = [];
  const needsDocs = t.required_checks.includes('document');
  if (needsDocs && t.required_documents.length === 0) {
    issues.push({
      loc: ['body', 'required_documents'],
      msg: 'a template with the document check must list at least one required document',
      type: 'value_error',
    });
  }
  if (!needsDocs && t.required_documents.length > 0) {
    issues.push({
      loc: ['body', 'required_checks'],
      msg: 'required_documents need the document check in required_checks',
      type: 'value_error',
    });
  }
  if (t.allowed_document_types.length) {
    t.required_documents.forEach((d, i) => {
      d.types.forEach((type, j) => {
        if (!t.allowed_document_types.includes(type)) {
          issues.push({
            loc: ['body', 'required_documents', i, 'types', j],
            msg: `"${type}" is not in allowed_document_types`,
            type: 'value_error',
          });
        }
      });
    });
  }
  if (issues.length) throw new ValidationError(issues);
}

export async function createTemplate(
  sql: Sql,
  tenantId: string,
  input: FlowTemplateCreateIn,
): Promise<TemplateRow> {
  const shape = {
    required_checks: input.required_checks,
    allowed_document_types: input.allowed_document_types ?? [],
    required_documents: input.required_documents ?? [],
  };
  validateShape(shape);
  const [row] = await sql<TemplateRow[]>`
    insert into flow_templates ${sql({
      tenant_id: tenantId,
      slug: input.slug,
      name: input.name,
      description: input.description ?? null,
      required_checks: shape.required_checks,
      allowed_document_types: shape.allowed_document_types,
      allowed_issuing_countries: (input.allowed_issuing_countries ?? []).map((c) => c.toUpperCase()),
      default_datasets: input.default_datasets ?? null,
      document_capture_mode: input.document_capture_mode ?? 'live_or_upload',
      passport_nfc_behavior: input.passport_nfc_behavior ?? 'optional',
      intake_fields: input.intake_fields ?? [],
      required_documents: json(sql, shape.required_documents),
      default_decision: input.default_decision ?? 'AUTO_APPROVED',
    })}
    on conflict (tenant_id, slug) do nothing
    returning *`;
  if (!row) {
    throw new StateConflict('conflict', `A flow template with slug "${input.slug}" already exists`, {
      slug: input.slug,
    });
  }
  return row;
}

export async function getTemplate(sql: Sql, tenantId: string, id: string): Promise<TemplateRow> {
  const t = await templateById(sql, tenantId, id);
  if (!t) throw new NotFound('Flow template');
  return t;
}

/** PATCH: absent or null = unchanged (default_datasets and description: null clears). */
export async function patchTemplate(
  sql: Sql,
  tenantId: string,
  id: string,
  p: FlowTemplatePatchIn,
): Promise<TemplateRow> {
  return transaction(sql, async (tx) => {
    const [cur] = await tx<TemplateRow[]>`
      select * from flow_templates where id = ${id} and tenant_id = ${tenantId} for update`;
    if (!cur) throw new NotFound('Flow template');
    const next = {
      name: p.name ?? cur.name,
      description: p.description === undefined ? cur.description : p.description,
      required_checks: p.required_checks ?? cur.required_checks,
      allowed_document_types: p.allowed_document_types ?? cur.allowed_document_types,
      allowed_issuing_countries:
        p.allowed_issuing_countries?.map((c) => c.toUpperCase()) ?? cur.allowed_issuing_countries,
      default_datasets: p.default_datasets === undefined ? cur.default_datasets : p.default_datasets,
      document_capture_mode: p.document_capture_mode ?? cur.document_capture_mode,
      passport_nfc_behavior: p.passport_nfc_behavior ?? cur.passport_nfc_behavior,
      intake_fields: p.intake_fields ?? cur.intake_fields,
      required_documents: p.required_documents ?? cur.required_documents,
      default_decision: (p.default_decision ?? cur.default_decision) as FlowDecision,
      // archiving twice keeps the first time; un-archiving clears it
      archived_at:
        p.archived === undefined || p.archived === null
          ? cur.archived_at
          : p.archived
            ? (cur.archived_at ?? new Date())
            : null,
    };
    validateShape(next);
    const [row] = await tx<TemplateRow[]>`
      update flow_templates set ${tx({
        ...next,
        required_documents: json(tx, next.required_documents),
        updated_at: new Date(),
      })}
      where id = ${id} and tenant_id = ${tenantId}
      returning *`;
    if (!row) throw new Error('template update returned nothing');
    return row;
  });
}
