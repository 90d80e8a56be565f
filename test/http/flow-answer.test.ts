import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFlow } from '../helpers/api-types.js';
import { call, createTenant, startTestApp, type TestApp } from '../helpers/test-app.js';

/* A sync flow's answer: its bytes are those JSON.stringify makes of the flow, and its evidence is what was stored
 * (docs/decisions/performance.md, "A check's evidence is serialised twice, on purpose"). */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Flow = ApiFlow<{ matches: unknown[] }>;

describe('POST /v1/flows sync answer', () => {
  it('is the JSON of the flow, byte for byte, with the evidence as stored', async () => {
    const tenant = await createTenant(t, { name: 'Answer bytes' });
    for (const applicant of [
      { legal_name_first: 'Ivan', legal_name_last: 'Demovsky', nationality: 'ru' },
      { legal_name_first: 'Nobody', legal_name_last: 'Unlisted-Person \u2028 "quoted"' },
    ]) {
      const res = await fetch(`${t.url}/v1/flows`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'sync', applicant }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json');
      const text = await res.text();
      const flow = JSON.parse(text) as Flow;
      // what JSON.stringify makes of the parsed answer is the answer: no byte differs
      expect(JSON.stringify(flow)).toBe(text);
      expect(flow.checks).toHaveLength(1);
      const got = await call<Flow>(t.url, 'GET', `/v1/flows/${flow.id}`, { token: tenant.secret_key });
      expect(got.status).toBe(200);
      expect(got.body.checks.map((c) => c.evidence)).toEqual(flow.checks.map((c) => c.evidence));
      if (applicant.legal_name_first === 'Ivan') {
        expect(flow.checks[0]?.result).toBe('hit');
        expect(flow.checks[0]?.evidence.matches.length).toBeGreaterThan(0);
      }
    }
  });
});
