import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 12 item 11: the lockout's check and count are one atomic step, so parallel guesses cannot all pass the
// check before any failure is counted.
const MAX = 3;
let t: TestApp;
let acme: Tenant;

const login = (email: string, password: string, tenantId = acme.id) =>
  call(t.url, 'POST', '/v1/sessions', { body: { tenant_id: tenantId, email, password } });

beforeAll(async () => {
  t = await startTestApp({ sources: null, env: { LOGIN_MAX_FAILURES: String(MAX) } });
  acme = await createTenant(t, { name: 'Acme' });
  const r = await call(t.url, 'POST', '/v1/operators', {
    token: acme.secret_key,
    body: {
      email: 'victim@acme.test',
      name: 'Victim',
      role: 'admin',
      password: 'correct horse battery staple',
    },
  });
  expect(r.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('login lockout under parallel guesses', () => {
  // each case starts with clean counters (every request of this file comes from 127.0.0.1)
  beforeEach(async () => {
    const keys = await t.app.redis.keys(`${t.app.config.NATS_NAMESPACE}:login:*`);
    if (keys.length) await t.app.redis.del(...keys);
  });

  it('lets at most LOGIN_MAX_FAILURES of 30 parallel guesses at one account be tried', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login('victim@acme.test', `guess-number-${i}`)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(MAX);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - MAX);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // and the right password is refused too while locked
    expect((await login('victim@acme.test', 'correct horse battery staple')).status).toBe(429);
  });

  it('lets at most 10 × LOGIN_MAX_FAILURES parallel guesses from one IP across many accounts be tried', async () => {
    const results = await Promise.all(
      Array.from({ length: 45 }, (_, i) => login(`nobody-${i}@acme.test`, 'a wrong password')),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10 * MAX);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(45 - 10 * MAX);
  });

  // Issue 32 item 2: the account's counter is keyed by the canonical tenant id, so writing the workspace id in
  // another case (Postgres compares UUIDs case-insensitively) is the same account, not five more guesses
  it('counts every spelling of the workspace id as one account', async () => {
    for (let i = 0; i < MAX; i++) expect((await login('victim@acme.test', `guess-${i}`)).status).toBe(401);
    const upper = acme.id.toUpperCase();
    const mixed = acme.id.replace(/[a-f]/, (c) => c.toUpperCase());
    for (const id of [upper, mixed]) {
      expect((await login('victim@acme.test', 'another guess', id)).status).toBe(429);
      expect((await login('victim@acme.test', 'correct horse battery staple', id)).status).toBe(429);
    }
    expect((await login('Victim@ACME.test', 'correct horse battery staple', upper)).status).toBe(429);
  });
});
