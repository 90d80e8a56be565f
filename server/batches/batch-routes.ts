import {
  BatchListQuery,
  BatchParams,
  CheckBatchCreateIn,
  CheckBatchListOut,
  CheckBatchOut,
  MAX_BATCH_RECORDS,
} from '../../schemas/batches.js';
import { AllowanceExhausted, ErrorEnvelope, ValidationFailure } from '../../schemas/common.js';
import type { Bus } from '../bus/jetstream.js';
import { page, pageArgs } from '../db/cursor.js';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';
import { withIdempotency } from '../idempotency/idempotency.js';
import { consumeAllowance } from '../tenants/allowance.js';
import { createBatch, publishChunks } from './batch-service.js';
import { type BatchRow, batchOut } from './batch-store.js';

/** 100,000 records of a few hundred bytes each: the one route allowed a body this large. */
export const BATCH_MAX_BODY_BYTES = 64 * 1024 * 1024;

const E404 = { description: 'Not found in this tenant', schema: ErrorEnvelope };
const E422 = {
  description: 'Validation error (or Idempotency-Key reused with another body)',
  schema: ValidationFailure,
};

export function batchRoutes(deps: { sql: Sql; bus: Bus }) {
  const { sql } = deps;
  /** One self-serve unit per subject, all or nothing, in the transaction that stores the batch. */
  const consumer = (tenantId: string, plan: string) => async (tx: Sql, units: number) => {
    if (plan === 'self_serve') await consumeAllowance(tx, tenantId, units, { batch: true });
  };
  return [
    route({
      method: 'POST',
      path: '/v1/check_batches',
      operationId: 'createCheckBatch',
      summary: `Screen up to ${MAX_BATCH_RECORDS} records asynchronously; poll the batch or subscribe to batch.completed`,
      tag: 'batches',
      auth: 'secret',
      body: CheckBatchCreateIn,
      maxBodyBytes: BATCH_MAX_BODY_BYTES,
      headers: {
        'idempotency-key': 'Replays the first response for 24 h; another body with the same key → 422',
      },
      responses: {
        202: { description: 'Accepted: the batch is queued', schema: CheckBatchOut },
        402: { description: 'Self-serve allowance too small for the batch', schema: AllowanceExhausted },
        409: { description: 'A request with this Idempotency-Key is still running', schema: ErrorEnvelope },
        422: E422,
      },
      handler: async ({ body, req, tenant, log }) => {
        let stored: BatchRow | undefined;
        // the batch and its Idempotency-Key record commit together: a retry after any failure replays the answer
        const { reply, replayed } = await withIdempotency(
          sql,
          { tenant_id: tenant.tenant_id, scope: 'check_batches', key: req.headers['idempotency-key'], body },
          async (tx) => {
            stored = await createBatch(tx, tenant, body, consumer(tenant.tenant_id, tenant.plan));
            return { status: 202, body: batchOut(stored) };
          },
        );
        // queue the chunks after the commit; if NATS is unreachable the batch stays queued and the stranded-batch
        // sweep queues it later: the answer is still 202, the batch is stored and will run
        if (stored && !replayed) {
          await publishChunks(deps, stored).catch((err: unknown) =>
            log.warn(
              { err, batch_id: stored?.id },
              'batch stored; queuing its chunks failed, the sweep will retry',
            ),
          );
        }
        // a replay changes nothing: no second audit row
        return replayed ? { ...reply, audited: true } : reply;
      },
    }),
    route({
      method: 'GET',
      path: '/v1/check_batches',
      operationId: 'listCheckBatches',
      summary: 'List check batches, newest first',
      tag: 'batches',
      auth: 'secret',
      query: BatchListQuery,
      responses: { 200: { description: 'A page', schema: CheckBatchListOut }, 422: E422 },
      handler: async ({ query, tenant }) => {
        const { limit, after } = pageArgs(query);
        const rows = await sql<BatchRow[]>`
          select * from check_batches where tenant_id = ${tenant.tenant_id}
            ${query.status ? sql`and status = ${query.status}` : sql``}
            ${after ? sql`and seq < ${after}` : sql``}
          order by seq desc limit ${limit + 1}`;
        const p = page(rows, limit);
        return { status: 200, body: { items: p.rows.map(batchOut), next_cursor: p.next_cursor } };
      },
    }),
    route({
      method: 'GET',
      path: '/v1/check_batches/{batch_id}',
      operationId: 'getCheckBatch',
      summary: 'A check batch with its progress counters',
      tag: 'batches',
      auth: 'secret',
      params: BatchParams,
      responses: {
        200: { description: 'The batch', schema: CheckBatchOut },
        404: E404,
        422: E422,
      },
      handler: async ({ params, tenant }) => {
        const [row] = await sql<BatchRow[]>`
          select * from check_batches where id = ${params.batch_id} and tenant_id = ${tenant.tenant_id}`;
        if (!row) throw new ApiError('not_found', { message: 'Check batch not found' });
        return { status: 200, body: batchOut(row) };
      },
    }),
  ];
}
