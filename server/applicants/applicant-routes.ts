import {
  ApplicantErasureOut,
  ApplicantListOut,
  ApplicantListQuery,
  ApplicantOut,
  ApplicantParams,
  ApplicantPatchIn,
} from '../../schemas/applicants.js';
import { ErrorEnvelope } from '../../schemas/common.js';
import { requireAdminAuthority, tenantOf } from '../auth/authorize.js';
import { route } from '../http/router.js';
import {
  type ApplicantDeps,
  getApplicant,
  listApplicants,
  patchApplicant,
  requestErasure,
} from './applicant-service.js';

const E403 = { description: 'Credential or role not allowed', schema: ErrorEnvelope };
const E404 = { description: 'Not found in this tenant (or erased)', schema: ErrorEnvelope };

export function applicantRoutes(deps: ApplicantDeps) {
  return [
    route({
      method: 'GET',
      path: '/v1/applicants',
      operationId: 'listApplicants',
      summary: 'List applicants, newest first; q searches external_id, email_hash and names',
      tag: 'applicants',
      auth: 'secret',
      query: ApplicantListQuery,
      responses: {
        200: { description: 'A page of applicants', schema: ApplicantListOut },
        403: E403,
      },
      handler: async ({ query, principal }) => ({
        status: 200,
        body: await listApplicants(deps, tenantOf(principal).tenant_id, query),
      }),
    }),
    route({
      method: 'GET',
      path: '/v1/applicants/{applicant_id}',
      operationId: 'getApplicant',
      summary: 'Get an applicant',
      tag: 'applicants',
      auth: 'secret',
      params: ApplicantParams,
      responses: {
        200: { description: 'The applicant', schema: ApplicantOut },
        403: E403,
        404: E404,
      },
      handler: async ({ params, principal }) => ({
        status: 200,
        body: await getApplicant(deps, tenantOf(principal).tenant_id, params.applicant_id),
      }),
    }),
    route({
      method: 'PATCH',
      path: '/v1/applicants/{applicant_id}',
      operationId: 'updateApplicant',
      summary: 'Correct an applicant; internal_status and risk_tier need admin authority',
      tag: 'applicants',
      auth: 'secret',
      params: ApplicantParams,
      body: ApplicantPatchIn,
      responses: {
        200: { description: 'The updated applicant', schema: ApplicantOut },
        403: E403,
        404: E404,
      },
      handler: async ({ params, body, principal, req }) => ({
        status: 200,
        body: await patchApplicant(
          deps,
          principal,
          tenantOf(principal).tenant_id,
          params.applicant_id,
          body,
          req.request_id,
        ),
        audited: true,
      }),
    }),
    route({
      method: 'DELETE',
      path: '/v1/applicants/{applicant_id}',
      operationId: 'eraseApplicant',
      summary: 'Schedule data-subject erasure (admin authority); 409 while a flow is open',
      tag: 'applicants',
      auth: 'secret',
      params: ApplicantParams,
      responses: {
        202: {
          description: 'Erasure scheduled; the applicant is gone from list and get',
          schema: ApplicantErasureOut,
        },
        403: E403,
        404: E404,
        409: { description: 'The applicant has an open flow', schema: ErrorEnvelope },
      },
      handler: async ({ params, principal, req, log }) => {
        requireAdminAuthority(principal);
        const out = await requestErasure(
          { ...deps, log },
          principal,
          tenantOf(principal).tenant_id,
          params.applicant_id,
          req.request_id,
        );
        return { status: 202, body: out, audited: true };
      },
    }),
  ];
}
