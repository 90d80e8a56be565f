import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { call } from './test-app.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

export interface OpenApiOperation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown> }[];
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
  responses: Record<string, { content?: { 'application/json'?: { schema: Record<string, unknown> } } }>;
}
export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/** The server's own /openapi.json, with a checker: does a response match what the document promises? */
export async function loadOpenApi(url: string) {
  const doc = (await call<OpenApiDoc>(url, 'GET', '/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const cache = new Map<string, ValidateFunction | null>();

  /** Returns null when the response matches, else a description of the mismatch. */
  function check(method: string, template: string, status: number, body: unknown): string | null {
    const op = doc.paths[template]?.[method.toLowerCase()];
    if (!op) return `no operation ${method} ${template}`;
    const key = `${method} ${template} ${status}`;
    let fn = cache.get(key);
    if (fn === undefined) {
      const resp = op.responses[String(status)] ?? op.responses.default;
      if (!resp) return `status ${status} is not documented for ${op.operationId}`;
      const schema = resp.content?.['application/json']?.schema;
      fn = schema ? ajv.compile(schema) : null;
      cache.set(key, fn);
    }
    if (fn && !fn(body)) {
      return `${op.operationId} ${status}: ${ajv.errorsText(fn.errors)} in ${JSON.stringify(body).slice(0, 300)}`;
    }
    return null;
  }
  return { doc, check };
}
