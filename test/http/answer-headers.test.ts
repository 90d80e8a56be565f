import { describe, expect, it } from 'vitest';
import type { Reply } from '../../server/http/router.js';
import { answerHeaders } from '../../server/http/server.js';

/** What the answer's headers were before answerHeaders: the request id, then one object spread from the headers set
 * through ctx.setHeader, the CORS headers and the reply's own, then the JSON content-type unless one was named. */
function bySpread(
  extra: Record<string, string> | undefined,
  cors: Record<string, string> | undefined,
  reply: Reply,
): [string, string][] {
  const all: Record<string, string> = { ...extra, ...cors, ...reply.headers };
  if (reply.body !== undefined && reply.text === undefined) all['content-type'] ??= 'application/json';
  return [['x-request-id', 'r1'], ...Object.entries(all)];
}

describe('answerHeaders', () => {
  const cases: [Record<string, string> | undefined, Record<string, string> | undefined, Reply][] = [
    [undefined, undefined, { status: 200, body: { a: 1 } }],
    [undefined, { vary: 'Origin' }, { status: 201, body: {} }],
    [
      undefined,
      { vary: 'Origin' },
      { status: 201, body: {}, headers: { 'content-type': 'application/x.redacted+json' } },
    ],
    [
      { ratelimit: 'a', 'ratelimit-policy': 'b' },
      { vary: 'Origin', 'access-control-allow-origin': 'https://x' },
      { status: 429, body: {}, headers: { 'retry-after': '3', ratelimit: 'c' } },
    ],
    [{ vary: 'X' }, { vary: 'Origin' }, { status: 204, headers: { allow: 'GET' } }],
    [undefined, undefined, { status: 200, text: 'plain', headers: { 'content-type': 'text/plain' } }],
    [undefined, undefined, { status: 200, text: 'no type' }],
    [{ 'x-request-id': 'dup' }, undefined, { status: 200, body: null }],
  ];
  it.each(cases.map((c, i) => [i, ...c] as const))(
    'case %i: the same names, values and order as one object spread',
    (_, extra, cors, reply) => {
      const out: [string, string][] = [['x-request-id', 'r1']];
      answerHeaders(out, extra, cors, reply);
      expect(out).toEqual(bySpread(extra, cors, reply));
    },
  );
});
