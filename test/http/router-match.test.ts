import { describe, expect, it } from 'vitest';
import { type HttpMethod, Router, route } from '../../server/http/router.js';

const r = (method: HttpMethod, path: string, operationId: string) =>
  route({
    method,
    path,
    operationId,
    summary: operationId,
    tag: 't',
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    handler: () => ({ status: 200 }),
  });

/** Which route answers (the exact-path map and the scan must agree). */
function found(router: Router, method: string, path: string): string | Record<string, unknown> {
  const m = router.match(method, path);
  return m.kind === 'found' ? `${m.route.spec.operationId} ${JSON.stringify(m.params)}` : m;
}

describe('Router.match', () => {
  const router = new Router();
  router.add(r('GET', '/v1/things/search', 'searchThings'));
  router.add(r('GET', '/v1/things/{thing_id}', 'getThing'));
  router.add(r('POST', '/v1/things', 'createThing'));
  router.add(r('GET', '/v1/things', 'listThings'));
  router.add(r('POST', '/v1/things/search', 'postSearch'));

  it.each([
    ['GET', '/v1/things/search', 'searchThings {}'],
    ['GET', '/v1/things/other', 'getThing {"thing_id":"other"}'],
    ['POST', '/v1/things/search', 'postSearch {}'],
    ['POST', '/v1/things', 'createThing {}'],
    ['GET', '/v1/things', 'listThings {}'],
    ['GET', '/v1/things/', 'listThings {}'],
    ['GET', '/v1/things/a%20b', 'getThing {"thing_id":"a b"}'],
  ])('%s %s → %s', (method, path, expected) => {
    expect(found(router, method, path)).toBe(expected);
  });

  it('answers method_not_allowed with the allowed methods, and not_found', () => {
    expect(found(router, 'DELETE', '/v1/things')).toEqual({
      kind: 'method_not_allowed',
      allowed: ['POST', 'GET'],
    });
    expect(found(router, 'GET', '/v1/%74hings')).toEqual({ kind: 'not_found' });
    expect(found(router, 'GET', '/v1/nothing/here/at/all')).toEqual({ kind: 'not_found' });
  });

  it('gives each request its own params object', () => {
    const a = router.match('GET', '/v1/things/x');
    const b = router.match('GET', '/v1/things/x');
    expect(a.kind === 'found' && b.kind === 'found' && a.params !== b.params).toBe(true);
  });
});

describe('Router.add refuses a route that could never answer', () => {
  it.each([
    {
      name: 'the same method and path twice',
      first: r('POST', '/v1/things', 'createThing'),
      second: r('POST', '/v1/things', 'createThingAgain'),
      error: 'route POST /v1/things (createThingAgain) duplicates POST /v1/things (createThing)',
    },
    {
      name: 'the same path with its parameter named otherwise',
      first: r('GET', '/v1/things/{thing_id}', 'getThing'),
      second: r('GET', '/v1/things/{id}', 'getThingById'),
      error: 'route GET /v1/things/{id} (getThingById) duplicates GET /v1/things/{thing_id} (getThing)',
    },
    {
      name: 'a static path after a parameter path that matches it',
      first: r('GET', '/v1/things/{thing_id}', 'getThing'),
      second: r('GET', '/v1/things/search', 'searchThings'),
      error: 'route GET /v1/things/search (searchThings) is shadowed by GET /v1/things/{thing_id} (getThing)',
    },
    {
      name: 'a deeper path after a route with parameters in its place',
      first: r('GET', '/v1/{kind}/{id}/events', 'events'),
      second: r('GET', '/v1/things/{id}/events', 'thingEvents'),
      error:
        'route GET /v1/things/{id}/events (thingEvents) is shadowed by GET /v1/{kind}/{id}/events (events)',
    },
  ])('$name', ({ first, second, error }) => {
    const router = new Router();
    router.add(first);
    expect(() => router.add(second)).toThrow(error);
    expect(router.routes).toHaveLength(1);
  });

  it.each([
    ['another method on the same path', r('GET', '/v1/things', 'a'), r('POST', '/v1/things', 'b')],
    [
      'a parameter path after a static one it does not cover',
      r('GET', '/v1/things/search', 'a'),
      r('GET', '/v1/things/{id}', 'b'),
    ],
    ['paths of different lengths', r('GET', '/v1/things/{id}', 'a'), r('GET', '/v1/things/{id}/events', 'b')],
  ])('accepts %s', (_name, first, second) => {
    const router = new Router();
    router.add(first);
    router.add(second);
    expect(router.routes).toHaveLength(2);
  });
});
