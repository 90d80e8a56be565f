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

/** Which route answers, as the scan in the order added finds it (the exact-path map must agree). */
function found(router: Router, method: string, path: string): string | Record<string, unknown> {
  const m = router.match(method, path);
  return m.kind === 'found' ? `${m.route.spec.operationId} ${JSON.stringify(m.params)}` : m;
}

describe('Router.match', () => {
  const router = new Router();
  router.add(r('GET', '/v1/things/{thing_id}', 'getThing'));
  router.add(r('GET', '/v1/things/search', 'searchThings')); // added after a parameter route that matches it
  router.add(r('POST', '/v1/things', 'createThing'));
  router.add(r('POST', '/v1/things', 'createThingAgain'));
  router.add(r('GET', '/v1/things', 'listThings'));
  router.add(r('POST', '/v1/things/search', 'postSearch'));

  it('finds the route the scan in the order added finds, static paths included', () => {
    expect(found(router, 'GET', '/v1/things/search')).toBe('getThing {"thing_id":"search"}');
    expect(found(router, 'POST', '/v1/things/search')).toBe('postSearch {}');
    expect(found(router, 'POST', '/v1/things')).toBe('createThing {}');
    expect(found(router, 'GET', '/v1/things')).toBe('listThings {}');
    expect(found(router, 'GET', '/v1/things/')).toBe('listThings {}');
    expect(found(router, 'GET', '/v1/things/a%20b')).toBe('getThing {"thing_id":"a b"}');
  });

  it('answers method_not_allowed and not_found as before', () => {
    expect(found(router, 'DELETE', '/v1/things')).toEqual({
      kind: 'method_not_allowed',
      allowed: ['POST', 'POST', 'GET'],
    });
    expect(found(router, 'GET', '/v1/%74hings')).toEqual({ kind: 'not_found' });
    expect(found(router, 'GET', '/v1/nothing/here/at/all')).toEqual({ kind: 'not_found' });
  });

  it('gives each request its own params object', () => {
    const a = router.match('GET', '/v1/things');
    const b = router.match('GET', '/v1/things');
    expect(a.kind === 'found' && b.kind === 'found' && a.params !== b.params).toBe(true);
  });
});
