// The one mapping from what a request's code throws to the answer the API gives (the error catalogue of
// server/errors.ts): a ValidationError → 422 with detail[]; a domain error of the core (server/domain-errors.ts) →
// its catalogue code; an ApiError (raised by the edge itself) → its catalogue status; an outage of Postgres, Redis or
// NATS → 503 with Retry-After; anything else → 500 with only the request id.
import { DomainError } from '../domain-errors.js';
import { ApiError, type Dependency, ERRORS, outageError, outageOf, ValidationError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Reply, RequestInfo } from './request.js';

/** The answer to an error the caller caused (ValidationError, or an ApiError below 500); undefined for anything else.
 * The idempotency store remembers exactly this answer, so a replay is byte-for-byte the first one. */
export function clientErrorReply(err: unknown): Reply | undefined {
  if (err instanceof ValidationError) {
    return {
      status: 422,
      body: {
        detail: err.issues,
        error: { code: 'validation_failed', message: ERRORS.validation_failed.message },
      },
    };
  }
  if (err instanceof DomainError) return apiErrorReply(asApiError(err));
  if (err instanceof ApiError && err.status < 500) return apiErrorReply(err);
  return undefined;
}

/** A domain error as the catalogue answers it: its code's status, its message (the catalogue's when it has none) and
 * its details. */
function asApiError(err: DomainError): ApiError {
  return new ApiError(err.code, {
    ...(err.message ? { message: err.message } : {}),
    ...(err.details ? { details: err.details } : {}),
    ...(err.loc ? { loc: err.loc } : {}),
  });
}

function apiErrorReply(err: ApiError): Reply {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  // every 422 carries the spec's detail[] (HTTPValidationError), whatever raised it
  const body =
    err.status === 422
      ? { detail: [{ loc: err.loc ?? ['body'], msg: err.message, type: err.code }], error }
      : { error };
  return { status: err.status, body, ...(err.headers ? { headers: err.headers } : {}) };
}

export function errorReply(
  err: unknown,
  log: Logger,
  req: RequestInfo | undefined,
  down?: () => Dependency[],
): Reply {
  // what the caller caused is answered as such, whatever else is down meanwhile
  const client = clientErrorReply(err);
  if (client) return client;
  // an outage of Postgres, Redis or NATS is not our bug: 503 with Retry-After, nothing was changed
  const dependency = outageOf(err, down);
  if (dependency) {
    log.warn(
      { err: (err as Error)?.message, dependency, path: req?.path, request_id: req?.request_id },
      'dependency unavailable',
    );
    return errorReply(outageError(dependency), log, req);
  }
  if (err instanceof ApiError) return apiErrorReply(err);
  // anything else is our bug: log it with context, tell the caller only the request id
  log.error({ err, method: req?.method, path: req?.path, request_id: req?.request_id }, 'unhandled error');
  return {
    status: 500,
    body: {
      error: {
        code: 'internal_error',
        message: ERRORS.internal_error.message,
        details: { request_id: req?.request_id },
      },
    },
  };
}
