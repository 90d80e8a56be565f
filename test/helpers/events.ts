import { expect } from 'vitest';
import { EVENT_CATALOGUE, type EventType } from '../../schemas/events.js';
import type { Pool } from '../../server/db/sql.js';
import { compileValidator } from '../../server/http/validation.js';

const validators = new Map(
  Object.entries(EVENT_CATALOGUE).map(([type, e]) => [type, compileValidator(e.payload, 'body')]),
);

/** Every outbox row written so far matches its payload schema in the event catalogue (schemas/events.ts). */
export async function expectCatalogueEvents(sql: Pool): Promise<number> {
  const rows = await sql<{ type: string; payload: unknown }[]>`select type, payload from outbox_events`;
  const bad: unknown[] = [];
  for (const r of rows) {
    const validate = validators.get(r.type as EventType);
    try {
      if (!validate) throw new Error('not in the catalogue');
      validate(r.payload);
    } catch (err) {
      bad.push({
        type: r.type,
        payload: r.payload,
        error: (err as { issues?: unknown }).issues ?? String(err),
      });
    }
  }
  expect(bad).toEqual([]);
  return rows.length;
}
