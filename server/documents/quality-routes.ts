import { ErrorEnvelope } from '../../schemas/common.js';
import { DocumentParams, DocumentQualityOut } from '../../schemas/documents.js';
import { tenantOf } from '../auth/authorize.js';
import { route } from '../http/router.js';
import { documentQuality, type QualityDeps } from './quality-service.js';

export function documentQualityRoutes(deps: QualityDeps) {
  return [
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/documents/{document_id}/quality',
      operationId: 'documentQuality',
      summary:
        'A synchronous capture-quality verdict on the uploaded image (blur, glare, size, MRZ/barcode, face)',
      tag: 'documents',
      // the hosted page asks for it on its own flow (docs/journey.md)
      auth: 'secret_or_applicant',
      params: DocumentParams,
      responses: {
        200: { description: 'The verdict (ok false with reasons: retake)', schema: DocumentQualityOut },
        404: { description: 'Not found in this tenant', schema: ErrorEnvelope },
        409: { description: 'Nothing uploaded yet, or the upload was rejected', schema: ErrorEnvelope },
        503: { description: 'The quality threads are at capacity; retry shortly', schema: ErrorEnvelope },
      },
      handler: async ({ params, principal }) => ({
        status: 200,
        body: await documentQuality(deps, tenantOf(principal).tenant_id, params.flow_id, params.document_id),
        headers: { 'cache-control': 'no-store' },
      }),
    }),
  ];
}
