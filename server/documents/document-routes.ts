import { ErrorEnvelope } from '../../schemas/common.js';
import {
  DocumentCompleteOut,
  DocumentCreatedOut,
  DocumentCreateIn,
  DocumentListOut,
  DocumentOut,
  DocumentParams,
  DocumentPreviewOut,
  DocumentSubmissionCreateIn,
  FlowDocumentParams,
} from '../../schemas/documents.js';
import { actorOf, writeAudit } from '../audit/audit.js';
import { canPreviewDocuments, fenceApplicant, tenantOf } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';
import {
  completeDocument,
  createDocument,
  type DocumentDeps,
  getDocument,
  listFlowDocuments,
  previewDocument,
} from './document-service.js';

const E403 = { description: 'Credential or role not allowed', schema: ErrorEnvelope };
const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };
const E409 = {
  description:
    'Wrong document or flow state (`flow_not_collecting`: an applicant session after its flow moved on)',
  schema: ErrorEnvelope,
};

export function documentRoutes(deps: DocumentDeps) {
  return [
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/documents',
      operationId: 'createFlowDocument',
      summary: 'Register a document on a flow and get presigned PUT instructions for its bytes',
      tag: 'documents',
      auth: 'secret_or_applicant',
      params: FlowDocumentParams,
      body: DocumentCreateIn,
      responses: {
        201: { description: 'Document registered (upload_status pending)', schema: DocumentCreatedOut },
        403: E403,
        404: E404,
        409: E409,
      },
      handler: async ({ params, body, principal, req }) => {
        const { tenant_id } = tenantOf(principal);
        const out = await createDocument(deps, principal, tenant_id, params.flow_id, body, req.request_id);
        return { status: 201, body: out, audited: true };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/documents',
      operationId: 'createDocument',
      summary: 'Register a document by submission_id (the flow id) and get presigned PUT instructions',
      tag: 'documents',
      auth: 'secret_or_applicant',
      body: DocumentSubmissionCreateIn,
      responses: {
        201: { description: 'Document registered (upload_status pending)', schema: DocumentCreatedOut },
        403: E403,
        404: E404,
        409: E409,
      },
      handler: async ({ body, principal, req }) => {
        const { tenant_id } = tenantOf(principal);
        const { submission_id, ...input } = body;
        fenceApplicant(principal, submission_id);
        const out = await createDocument(deps, principal, tenant_id, submission_id, input, req.request_id);
        return { status: 201, body: { ...out, submission_id }, audited: true };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/flows/{flow_id}/documents',
      operationId: 'listFlowDocuments',
      summary: "List a flow's documents, oldest first",
      tag: 'documents',
      auth: 'secret',
      params: FlowDocumentParams,
      responses: {
        200: { description: 'Documents', schema: DocumentListOut },
        404: E404,
      },
      handler: async ({ params, principal }) => ({
        status: 200,
        body: await listFlowDocuments(deps, tenantOf(principal).tenant_id, params.flow_id),
      }),
    }),
    route({
      method: 'GET',
      path: '/v1/flows/{flow_id}/documents/{document_id}',
      operationId: 'getFlowDocument',
      summary: 'Get a document (upload_status: pending → uploaded → verified | rejected)',
      tag: 'documents',
      auth: 'secret',
      params: DocumentParams,
      responses: {
        200: { description: 'The document', schema: DocumentOut },
        404: E404,
      },
      handler: async ({ params, principal }) => ({
        status: 200,
        body: await getDocument(deps, tenantOf(principal).tenant_id, params.flow_id, params.document_id),
      }),
    }),
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/documents/{document_id}/complete',
      operationId: 'completeFlowDocument',
      summary: 'Mark the upload done; the object is then verified in the background (202)',
      tag: 'documents',
      auth: 'secret_or_applicant',
      params: DocumentParams,
      responses: {
        202: { description: 'Verification queued (upload_status uploaded)', schema: DocumentCompleteOut },
        403: E403,
        404: E404,
        409: E409,
      },
      handler: async ({ params, principal, req }) => {
        const { tenant_id } = tenantOf(principal);
        const out = await completeDocument(
          deps,
          principal,
          tenant_id,
          params.flow_id,
          params.document_id,
          req.request_id,
        );
        return { status: 202, body: out, audited: true };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/flows/{flow_id}/documents/{document_id}/preview',
      operationId: 'previewFlowDocument',
      summary: 'A short-lived presigned GET of a verified document (secret key or operator session only)',
      tag: 'documents',
      auth: 'secret',
      params: DocumentParams,
      responses: {
        200: { description: 'Preview address', schema: DocumentPreviewOut },
        403: E403,
        404: E404,
        409: E409,
      },
      handler: async ({ params, principal, req }) => {
        return auditedPreview(deps.sql, principal, req.request_id, params, 'document.previewed', (tenantId) =>
          previewDocument(deps, tenantId, params.flow_id, params.document_id),
        );
      },
    }),
  ];
}

/** A presigned view of an identity image (the upload, the chip portrait): operators and secret keys only, and
 * audited, as reading identity documents is itself an audited act. */
export async function auditedPreview<T>(
  sql: Sql,
  principal: Principal,
  requestId: string,
  params: { flow_id: string; document_id: string },
  action: string,
  view: (tenantId: string) => Promise<T>,
) {
  if (!canPreviewDocuments(principal)) throw new ApiError('forbidden');
  const { tenant_id } = tenantOf(principal);
  const body = await view(tenant_id);
  await writeAudit(sql, {
    tenant_id,
    ...actorOf(principal),
    action,
    resource_type: 'document',
    resource_id: params.document_id,
    request_id: requestId,
    details: { flow_id: params.flow_id },
  });
  return { status: 200, body, headers: { 'cache-control': 'no-store' } };
}
