// The event catalogue (schemas/events.ts) is the single source of the webhook event enum, the OpenAPI `webhooks`
// section, the list in docs/webhooks.md, and the one function that writes outbox rows.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, EVENT_TYPES } from '../../schemas/events.js';
import { WEBHOOK_EVENTS, WebhookEvent } from '../../schemas/webhooks.js';
import { buildOpenApi } from '../../server/http/openapi.js';
import { eventListMarkdown } from '../../server/outbox/outbox.js';
import { inlineRefs } from '../helpers/openapi-check.js';
import { REPO_ROOT } from '../helpers/shared-data.js';

const BEGIN = '<!-- events:begin (generated from schemas/events.ts) -->';
const END = '<!-- events:end -->';

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('event catalogue', () => {
  it('is the webhook event enum', () => {
    expect(WEBHOOK_EVENTS).toEqual(EVENT_TYPES);
    expect((WebhookEvent as unknown as { enum: string[] }).enum).toEqual(EVENT_TYPES);
  });

  it('is the webhooks section of the OpenAPI document: one signed POST per event with its payload schema', () => {
    const doc = inlineRefs(buildOpenApi([], 'test')) as {
      webhooks: Record<string, { post: Record<string, unknown> }>;
    };
    expect(Object.keys(doc.webhooks)).toEqual(EVENT_TYPES);
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type]?.post as {
        requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
      };
      const schema = post.requestBody.content['application/json'].schema;
      expect(schema.properties.type).toEqual({ const: type, type: 'string' });
      expect(schema.properties.data).toEqual(JSON.parse(JSON.stringify(EVENT_CATALOGUE[type].payload)));
    }
  });

  it('is the event list of docs/webhooks.md (UPDATE_DOCS=1 rewrites it)', async () => {
    const path = join(REPO_ROOT, 'docs', 'webhooks.md');
    const doc = await readFile(path, 'utf8');
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start, `docs/webhooks.md needs the markers ${BEGIN} … ${END}`).toBeGreaterThanOrEqual(0);
    const expected = `${BEGIN}\n${eventListMarkdown()}\n${END}`;
    const actual = doc.slice(start, end + END.length);
    if (actual !== expected && process.env.UPDATE_DOCS === '1') {
      await writeFile(path, doc.replace(actual, expected));
      return;
    }
    expect(actual).toBe(expected);
  });

  it('is written by one function: no other module inserts into the outbox tables', async () => {
    const offenders: string[] = [];
    for (const f of await files(join(REPO_ROOT, 'server'))) {
      if (f.endsWith(join('outbox', 'outbox.ts'))) continue;
      if (/insert\s+into\s+outbox_(events|rows|sets)\b/i.test(await readFile(f, 'utf8'))) offenders.push(f);
    }
    expect(offenders).toEqual([]);
  });
});
