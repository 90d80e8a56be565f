// What the edge knows of a request and its answer, as plain types: the modules the request path calls (auth/,
// audit/, idempotency/) depend on this leaf, not on the router or the request path.
import type { Principal } from '../auth/principal.js';

export interface RequestInfo {
  method: string;
  path: string;
  headers: Record<string, string>;
  ip: string;
  request_id: string;
}

export interface Reply {
  status: number;
  /** serialised as JSON */
  body?: unknown;
  /** sent as is (with its own content-type header) instead of a JSON body */
  text?: string;
  /** bytes sent as they are (with their own content-type and content-encoding headers), before `text` */
  bytes?: Buffer;
  headers?: Record<string, string>;
  /** set by handlers that wrote their own audit row (in their transaction); others get the central one */
  audited?: boolean;
}

/** What the central audit hook sees of a successful state-changing call (server/audit/audit.ts). */
export interface AuditedCall {
  /** the route's declaration: its method, path template, operationId and tag */
  spec: { method: string; path: string; operationId: string; tag: string };
  principal: Principal;
  req: RequestInfo;
  params: Record<string, string>;
  reply: Reply;
}
