import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { canonicalUuid, FORMATS } from '../../schemas/formats.js';
import { ValidationError, type ValidationIssue } from '../errors.js';

// ajv-formats ships CJS with exports.default; under NodeNext its typings hide the callable
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const bodyAjv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const queryAjv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: true });
/** Added by compileValidator next to every `format: 'uuid'`: the value is rewritten to its canonical spelling. */
const CANONICAL_UUID = 'x-canonical-uuid';
for (const ajv of [bodyAjv, queryAjv]) {
  addFormats(ajv);
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  ajv.addKeyword({
    keyword: CANONICAL_UUID,
    modifying: true,
    schemaType: 'boolean',
    errors: false,
    validate: (
      _on: boolean,
      data: unknown,
      _schema: unknown,
      at?: { parentData: unknown; parentDataProperty: string | number },
    ) => {
      if (typeof data === 'string' && at?.parentData && typeof at.parentData === 'object') {
        (at.parentData as Record<string | number, unknown>)[at.parentDataProperty] = canonicalUuid(data);
      }
      return true;
    },
  });
}

/**
 * The schema with the canonicalising keyword next to every `format: 'uuid'`: one spelling of every identifier
 * (lower case) reaches handlers, stores and throttle keys, whichever case the client wrote (docs/decisions.md,
 * "Identifiers and timestamps"). Other spellings fail the format itself (schemas/formats.ts).
 */
function withCanonicalIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withCanonicalIds);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = withCanonicalIds(v);
  if (out.format === 'uuid') out[CANONICAL_UUID] = true;
  return out;
}

export type Where = 'body' | 'query' | 'path';
export type Validator = (value: unknown) => void;

function toIssues(where: Where, errors: ErrorObject[]): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  // union branches repeat themselves; the first error at a location is the most specific one
  const ordered = [...errors].sort((a, b) => Number(a.keyword === 'anyOf') - Number(b.keyword === 'anyOf'));
  for (const e of ordered) {
    const loc: (string | number)[] = [where];
    for (const part of e.instancePath.split('/').slice(1)) {
      const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
      loc.push(/^\d+$/.test(key) ? Number(key) : key);
    }
    let msg = e.message ?? 'is invalid';
    let type: string = e.keyword;
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'required') {
      loc.push(String(p.missingProperty));
      msg = 'Field required';
      type = 'missing';
    } else if (e.keyword === 'additionalProperties') {
      loc.push(String(p.additionalProperty));
      msg = 'Unknown field: not allowed';
      type = 'extra_forbidden';
    } else if (e.keyword === 'enum') {
      msg = `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    } else if (e.keyword === 'type') {
      type = 'type_error';
    }
    const k = loc.join('\u0000');
    if (seen.has(k)) continue;
    seen.add(k);
    issues.push({ loc, msg, type });
  }
  return issues;
}

export function compileValidator(schema: TSchema, where: Where): Validator {
  const fn: ValidateFunction = (where === 'body' ? bodyAjv : queryAjv).compile(
    withCanonicalIds(schema) as TSchema,
  );
  return (value: unknown) => {
    const text = textIssues(where, value);
    if (text.length) throw new ValidationError(text);
    if (!fn(value)) throw new ValidationError(toIssues(where, fn.errors ?? []));
  };
}

/**
 * The text rule, for every string of every request (body, query, path; values and object keys), whatever the
 * route's schema says: no U+0000 (Postgres text cannot hold it), no unpaired UTF-16 surrogate (not encodable as
 * UTF-8) and no control character other than tab and newline (C0, DEL, C1: invisible in names, a log- and
 * CSV-injection vector). Applied before the schema, so every route gets it without declaring anything.
 */
const BAD_TEXT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const TEXT_RULE_MSG =
  'must not contain U+0000, unpaired surrogates or control characters other than tab and newline';
/** Deeper JSON than this is refused before the schema runs (recursive validators would overflow the stack). */
export const MAX_DEPTH = 32;

export function hasBadText(s: string): boolean {
  return BAD_TEXT.test(s);
}

/** A value met by the walk below: its location is kept as a link to its parent and built only for an issue (a
 * location array per value was most of a small body's validation garbage). */
interface Visit {
  v: unknown;
  key: string | number;
  depth: number;
  parent: Visit | undefined;
}
const locOf = (n: Visit, key?: string): (string | number)[] => {
  const loc: (string | number)[] = key === undefined ? [] : [key];
  for (let at: Visit | undefined = n; at; at = at.parent) loc.push(at.key);
  return loc.reverse();
};

/** Issues of the text rule and the depth limit, walked iteratively (so a hostile nesting cannot overflow). */
export function textIssues(where: Where, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Visit[] = [{ v: value, key: where, depth: 1, parent: undefined }];
  while (stack.length && issues.length < 20) {
    const n = stack.pop() as Visit;
    const { v } = n;
    if (typeof v === 'string') {
      if (BAD_TEXT.test(v))
        issues.push({ loc: locOf(n), msg: TEXT_RULE_MSG, type: 'string_invalid_character' });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (n.depth > MAX_DEPTH) {
      issues.push({ loc: locOf(n), msg: `must not nest deeper than ${MAX_DEPTH} levels`, type: 'too_deep' });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, depth: n.depth + 1, parent: n });
      continue;
    }
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (BAD_TEXT.test(k)) {
        issues.push({ loc: locOf(n, k), msg: `the key ${TEXT_RULE_MSG}`, type: 'string_invalid_character' });
        continue;
      }
      stack.push({ v: (v as Record<string, unknown>)[k], key: k, depth: n.depth + 1, parent: n });
    }
  }
  return issues;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A request body as text: invalid UTF-8 is refused, never replaced by U+FFFD. */
export function decodeBody(raw: Buffer | undefined): string {
  if (!raw?.length) return '';
  try {
    return utf8.decode(raw);
  } catch {
    throw new ValidationError([{ loc: ['body'], msg: 'The body is not valid UTF-8', type: 'utf8_invalid' }]);
  }
}

/** JSON.parse with an error that says where, never what: the message must not echo the body (it may hold secrets). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const pos = /position (\d+)/.exec((e as Error).message)?.[1];
    const msg =
      text.trim() === ''
        ? 'JSON decode error: the body is empty'
        : `JSON decode error${pos !== undefined ? ` at position ${pos}` : ''}: the body is not valid JSON`;
    throw new ValidationError([{ loc: ['body'], msg, type: 'json_invalid' }]);
  }
}

/**
 * The query string as a map. Stricter than URLSearchParams: a name given twice is a 422 (not "first wins"), and a
 * percent-encoding that is not UTF-8 is a 422 (not U+FFFD).
 */
export function parseQuery(raw: string): Record<string, string> {
  const query: Record<string, string> = {};
  const issues: ValidationIssue[] = [];
  const decode = (s: string): string | undefined => {
    try {
      return decodeURIComponent(s.replaceAll('+', ' '));
    } catch {
      return undefined;
    }
  };
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const name = decode(rawName);
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    if (name === undefined || value === undefined) {
      issues.push({
        loc: ['query', name ?? rawName],
        msg: 'Malformed percent-encoding (must be UTF-8)',
        type: 'utf8_invalid',
      });
      continue;
    }
    if (Object.hasOwn(query, name)) {
      issues.push({ loc: ['query', name], msg: 'The parameter is given more than once', type: 'repeated' });
      continue;
    }
    query[name] = value;
  }
  if (issues.length) throw new ValidationError(issues);
  return query;
}
