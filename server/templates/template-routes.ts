import { ErrorEnvelope } from '../../schemas/common.js';
import {
  FlowTemplateCreateIn,
  FlowTemplateListOut,
  FlowTemplateListQuery,
  FlowTemplateOut,
  FlowTemplateParams,
  FlowTemplatePatchIn,
} from '../../schemas/templates.js';
import { page, pageArgs } from '../db/cursor.js';
import type { Sql } from '../db/sql.js';
import { route } from '../http/router.js';
import { createTemplate, getTemplate, patchTemplate, templateOut } from './template-service.js';
import { invalidateTemplateCache, type TemplateRow } from './template-store.js';

const E403 = { description: 'A publishable key cannot manage templates', schema: ErrorEnvelope };
const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };

export function templateRoutes(sql: Sql) {
  return [
    route({
      method: 'GET',
      path: '/v1/flow_templates',
      operationId: 'listFlowTemplates',
      summary: 'List flow templates, newest first',
      tag: 'flow_templates',
      auth: 'secret',
      query: FlowTemplateListQuery,
      responses: {
        200: { description: 'A page of templates', schema: FlowTemplateListOut },
        403: E403,
      },
      handler: async ({ query, tenant }) => {
        const { limit, after } = pageArgs(query);
        const rows = await sql<TemplateRow[]>`
          select * from flow_templates
          where tenant_id = ${tenant.tenant_id}
            ${query.archived === true ? sql`and archived_at is not null` : sql``}
            ${query.archived === false ? sql`and archived_at is null` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc
          limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(templateOut), next_cursor: p.next_cursor } };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/flow_templates',
      operationId: 'createFlowTemplate',
      summary: 'Create a flow template',
      tag: 'flow_templates',
      auth: 'secret',
      body: FlowTemplateCreateIn,
      responses: {
        201: { description: 'The template', schema: FlowTemplateOut },
        403: E403,
        409: { description: 'The slug is taken in this tenant', schema: ErrorEnvelope },
      },
      handler: async ({ body, tenant }) => {
        return { status: 201, body: templateOut(await createTemplate(sql, tenant.tenant_id, body)) };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/flow_templates/{flow_template_id}',
      operationId: 'getFlowTemplate',
      summary: 'Get a flow template',
      tag: 'flow_templates',
      auth: 'secret',
      params: FlowTemplateParams,
      responses: {
        200: { description: 'The template', schema: FlowTemplateOut },
        403: E403,
        404: E404,
      },
      handler: async ({ params, tenant }) => {
        return {
          status: 200,
          body: templateOut(await getTemplate(sql, tenant.tenant_id, params.flow_template_id)),
        };
      },
    }),
    route({
      method: 'PATCH',
      path: '/v1/flow_templates/{flow_template_id}',
      operationId: 'updateFlowTemplate',
      summary: 'Update a flow template; archived: true stops it from starting flows',
      tag: 'flow_templates',
      auth: 'secret',
      params: FlowTemplateParams,
      body: FlowTemplatePatchIn,
      responses: {
        200: { description: 'The template', schema: FlowTemplateOut },
        403: E403,
        404: E404,
      },
      handler: async ({ params, body, tenant }) => {
        const row = await patchTemplate(sql, tenant.tenant_id, params.flow_template_id, body);
        invalidateTemplateCache(tenant.tenant_id);
        return { status: 200, body: templateOut(row) };
      },
    }),
  ];
}
