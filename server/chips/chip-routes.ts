import { ChipChallengeOut, ChipSubmissionIn, ChipSubmissionOut } from '../../schemas/chips.js';
import { ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import { DocumentParams, DocumentPreviewOut } from '../../schemas/documents.js';
import { tenantOf } from '../auth/authorize.js';
import { auditedPreview } from '../documents/document-routes.js';
import { presignedView } from '../documents/document-service.js';
import { route } from '../http/router.js';
import type { ObjectStore } from '../storage/s3.js';
import { base64Cap } from '../trust-store/trust-store-routes.js';
import { type ChipDeps, chipPortraitKeyOf, createChallenge, submitChip } from './chip-service.js';

const E403 = {
  description: "applicant_session_forbidden: an applicant session and another flow's document",
  schema: ErrorEnvelope,
};
const E404 = {
  description: 'Not found in this tenant (or not a document of this flow)',
  schema: ErrorEnvelope,
};
const E409 = {
  description: 'The flow is decided, the document rejected, or its chip submitted already',
  schema: ErrorEnvelope,
};
const E422 = {
  description:
    'chip_not_accepted (template or document type), chip_data_invalid, chip_challenge_invalid, or invalid fields',
  schema: ValidationFailure,
};

/** Chip data of a flow's passport or ID card: a secret key (the tenant's app through its backend; operator sessions
 * as the tenant's key) or an applicant session of that flow (the tenant's app that opened the verification or
 * hand-off link and reads the chip itself: docs/journey.md). The fence (authorizeRoute) keeps an applicant session
 * to its own flow's documents; the chip portrait stays with the tenant and its operators. */
export function chipRoutes(deps: ChipDeps & { store: ObjectStore; previewTtlSeconds: number }) {
  const cap = base64Cap(deps.maxBytes);
  return [
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/documents/{document_id}/chip/challenges',
      operationId: 'createChipChallenge',
      summary:
        'An Active Authentication challenge for this document: 8 random bytes, single use, valid 5 minutes',
      tag: 'documents',
      auth: 'secret_or_applicant',
      params: DocumentParams,
      responses: {
        201: { description: 'The challenge', schema: ChipChallengeOut },
        403: E403,
        404: E404,
        409: E409,
        422: E422,
      },
      handler: async ({ params, principal }) => ({
        status: 201,
        body: await createChallenge(deps, tenantOf(principal).tenant_id, params.flow_id, params.document_id),
      }),
    }),
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/documents/{document_id}/chip',
      operationId: 'submitDocumentChip',
      summary:
        "Submit what a reader app read from the document's chip (EF.SOD, DG1, DG2, …, base64): verified in the background",
      tag: 'documents',
      auth: 'secret_or_applicant',
      params: DocumentParams,
      body: ChipSubmissionIn(cap),
      maxBodyBytes: cap + 64 * 1024,
      responses: {
        202: { description: 'Stored; passive authentication queued', schema: ChipSubmissionOut },
        403: E403,
        404: E404,
        409: E409,
        413: { description: 'Larger than CHIP_MAX_BYTES', schema: ErrorEnvelope },
        422: E422,
      },
      handler: async ({ params, principal, body, req }) => {
        const { tenant_id } = tenantOf(principal);
        const out = await submitChip(
          deps,
          principal,
          tenant_id,
          params.flow_id,
          params.document_id,
          body,
          req.request_id,
        );
        return { status: 202, body: out, audited: true };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/flows/{flow_id}/documents/{document_id}/chip/portrait',
      operationId: 'previewChipPortrait',
      summary:
        "A short-lived presigned GET of the chip's DG2 portrait as JPEG (secret key or operator session only)",
      tag: 'documents',
      auth: 'secret',
      params: DocumentParams,
      responses: {
        200: { description: 'Preview address', schema: DocumentPreviewOut },
        403: { description: 'Not allowed', schema: ErrorEnvelope },
        404: E404,
      },
      handler: async ({ params, principal, req }) => {
        return auditedPreview(
          deps.sql,
          principal,
          req.request_id,
          params,
          'document.chip_portrait_previewed',
          async (tenantId: string) =>
            presignedView(
              deps.store,
              await chipPortraitKeyOf(deps.sql, tenantId, params.flow_id, params.document_id),
              'image/jpeg',
              deps.previewTtlSeconds,
            ),
        );
      },
    }),
  ];
}
