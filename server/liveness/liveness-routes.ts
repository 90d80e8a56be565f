import { ErrorEnvelope } from '../../schemas/common.js';
import { LivenessChallengeOut, LivenessChallengeParams } from '../../schemas/liveness.js';
import { tenantOf } from '../auth/authorize.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { createChallenge } from './liveness-service.js';

export function livenessRoutes(sql: Sql) {
  return [
    route({
      method: 'POST',
      path: '/v1/flows/{flow_id}/liveness_challenges',
      operationId: 'createLivenessChallenge',
      summary: 'Issue a selfie liveness challenge: front, then three head turns; one selfie frame each',
      tag: 'documents',
      // the hosted page asks for it on its own flow (docs/journey.md)
      auth: 'secret_or_applicant',
      params: LivenessChallengeParams,
      responses: {
        201: { description: 'The challenge (valid 5 minutes)', schema: LivenessChallengeOut },
        403: { description: 'Credential or role not allowed', schema: ErrorEnvelope },
        404: { description: 'No such flow in this tenant', schema: ErrorEnvelope },
        409: { description: 'The flow is decided, or has had its challenges', schema: ErrorEnvelope },
      },
      handler: async ({ params, principal }) => ({
        status: 201,
        body: await createChallenge(sql, tenantOf(principal).tenant_id, params.flow_id),
      }),
    }),
  ];
}
