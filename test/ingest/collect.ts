// Test helper: read a whole source into memory with its issues.

import type { Entity, IngestIssue } from '../../ingest/entity.js';
import { readSource } from '../../ingest/index.js';

export interface Collected {
  entities: Entity[];
  issues: IngestIssue[];
  byId: Map<string, Entity>;
}

export async function collect(format: string, p: string): Promise<Collected> {
  const issues: IngestIssue[] = [];
  const entities: Entity[] = [];
  for await (const e of readSource(format, p, (i) => issues.push(i))) entities.push(e);
  return { entities, issues, byId: new Map(entities.map((e) => [e.source_id, e])) };
}

export function countBy<T>(items: readonly T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of items) {
    const k = key(it);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export function namesOf(e: Entity | undefined, kind?: string): string[] {
  if (e === undefined) return [];
  return e.names.filter((n) => kind === undefined || n.kind === kind).map((n) => n.value);
}
