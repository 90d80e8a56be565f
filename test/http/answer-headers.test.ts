import { describe, expect, it } from 'vitest';
import type { Reply } from '../../server/http/router.js';
import { answerHeaders } from '../../server/http/server.js';

const headersOf = (
  extra: Record<string, string> | undefined,
  cors: Record<string, string> | undefined,
  reply: Reply,
): [string, string][] => {
  const out: [string, string][] = [['x-request-id', 'r1']];
  answerHeaders(out, extra, cors, reply);
  return out;
};

describe('answerHeaders', () => {
  it('gives a JSON body application/json after the request id', () => {
    expect(headersOf(undefined, undefined, { status: 200, body: { a: 1 } })).toEqual([
      ['x-request-id', 'r1'],
      ['content-type', 'application/json'],
    ]);
  });

  it("keeps the reply's own content-type for a JSON body (the redacted flow's media type)", () => {
    expect(
      headersOf(
        undefined,
        { vary: 'Origin' },
        { status: 201, body: {}, headers: { 'content-type': 'application/x.redacted+json' } },
      ),
    ).toEqual([
      ['x-request-id', 'r1'],
      ['vary', 'Origin'],
      ['content-type', 'application/x.redacted+json'],
    ]);
  });

  it("orders handler headers, then CORS, then the reply's; a later value replaces an earlier one in its place", () => {
    expect(
      headersOf(
        { ratelimit: 'a', 'ratelimit-policy': 'b' },
        { vary: 'Origin', 'access-control-allow-origin': 'https://x' },
        { status: 429, body: {}, headers: { 'retry-after': '3', ratelimit: 'c' } },
      ),
    ).toEqual([
      ['x-request-id', 'r1'],
      ['ratelimit', 'c'],
      ['ratelimit-policy', 'b'],
      ['vary', 'Origin'],
      ['access-control-allow-origin', 'https://x'],
      ['retry-after', '3'],
      ['content-type', 'application/json'],
    ]);
  });

  it('adds no content-type to a text answer or an answer without a body', () => {
    expect(headersOf(undefined, undefined, { status: 200, text: 'no type' })).toEqual([
      ['x-request-id', 'r1'],
    ]);
    expect(headersOf({ vary: 'X' }, { vary: 'Origin' }, { status: 204, headers: { allow: 'GET' } })).toEqual([
      ['x-request-id', 'r1'],
      ['vary', 'Origin'],
      ['allow', 'GET'],
    ]);
  });
});
