// One HTTP call to a running app and its answer, parsed when it is JSON. Apart from test-app.ts, which starts
// apps, so that a test of what a call sends needs no services (test/helpers/test-needs.ts).

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  url: string,
  method: string,
  path: string,
  opts: {
    token?: string;
    admin?: string;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.admin) headers['x-admin-token'] = opts.admin;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T };
}
