import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { FORMATS } from '../../schemas/formats.js';
import { call } from './http-call.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

type Schema = Record<string, unknown>;
export interface OpenApiOperation {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** The document with every local `$ref` replaced by what it points at (the server's schemas are not recursive). */
export function inlineRefs<T>(doc: T): T {
  const resolve = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], doc);
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('inlineRefs: a recursive $ref');
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (!v || typeof v !== 'object') return v;
    const { $ref, ...rest } = v as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(rest).map(([k, x]) => [k, walk(x, depth + 1)]));
    if (typeof $ref !== 'string' || !$ref.startsWith('#/'))
      return $ref === undefined ? own : { $ref, ...own };
    const target = walk(resolve($ref), depth + 1);
    if (target === undefined) throw new Error(`inlineRefs: ${$ref} points at nothing`);
    return { ...(target as object), ...own };
  };
  return walk(doc, 0) as T;
}

/** The server's own /openapi.json, with a checker: does a response match what the document promises? Every
 * status must be documented for the operation (`default` stands for 500 only), and the body must match the
 * schema of its Content-Type (application/json unless given). */
export async function loadOpenApi(url: string) {
  const raw = (await call<OpenApiDoc>(url, 'GET', '/openapi.json')).body;
  const doc = inlineRefs(raw);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  const cache = new Map<string, ValidateFunction | null>();

  /** Returns null when the response matches, else a description of the mismatch. */
  function check(
    method: string,
    template: string,
    status: number,
    body: unknown,
    contentType = 'application/json',
  ): string | null {
    const op = doc.paths[template]?.[method.toLowerCase()];
    if (!op) return `no operation ${method} ${template}`;
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const key = `${method} ${template} ${status} ${mediaType}`;
    let fn = cache.get(key);
    if (fn === undefined) {
      const resp = op.responses[String(status)] ?? (status === 500 ? op.responses.default : undefined);
      if (!resp) return `status ${status} is not documented for ${op.operationId}`;
      if (resp.content && !resp.content[mediaType]) {
        return `${op.operationId} ${status}: media type ${mediaType} is not documented`;
      }
      const schema = resp.content?.[mediaType]?.schema;
      fn = schema ? ajv.compile(schema) : null;
      cache.set(key, fn);
    }
    if (fn && !fn(body)) {
      return `${op.operationId} ${status}: ${ajv.errorsText(fn.errors)} in ${JSON.stringify(body).slice(0, 300)}`;
    }
    return null;
  }
  return { doc, raw, check };
}
