import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError, type ValidationIssue } from '../errors.js';

// ajv-formats ships CJS with exports.default; under NodeNext its typings hide the callable
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const bodyAjv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const queryAjv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: true });
addFormats(bodyAjv);
addFormats(queryAjv);

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
  const fn: ValidateFunction = (where === 'body' ? bodyAjv : queryAjv).compile(schema);
  return (value: unknown) => {
    if (!fn(value)) throw new ValidationError(toIssues(where, fn.errors ?? []));
  };
}
