import { expect } from 'vitest';
import { call } from './test-app.js';

/** Registers a document on a flow, PUTs its bytes with the presigned instructions and (unless `complete` is false)
 * completes it; returns the document id. */
export async function uploadDocument(
  url: string,
  token: string,
  flowId: string,
  body: Record<string, unknown>,
  bytes: Buffer | null,
  complete = true,
): Promise<string> {
  const c = await call<{
    id: string;
    upload: { url: string; method: string; headers: Record<string, string> };
  }>(url, 'POST', `/v1/flows/${flowId}/documents`, { token, body });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  if (bytes) {
    const put = await fetch(c.body.upload.url, {
      method: 'PUT',
      headers: c.body.upload.headers,
      body: bytes,
    });
    await put.arrayBuffer();
    expect(put.status).toBe(200);
  }
  if (complete) {
    const done = await call(url, 'POST', `/v1/flows/${flowId}/documents/${c.body.id}/complete`, { token });
    expect(done.status).toBe(202);
  }
  return c.body.id;
}
