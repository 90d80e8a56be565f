import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonText, onceJson, serializeJsonb, withEvidenceJson } from '../../server/db/json-text.js';
import { connectSql, json } from '../../server/db/sql.js';

const PG = `${process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432'}/postgres`;

const evidence = () => ({
  subject: { name: 'Ivan Demovsky', type: 'person' },
  subjects: [{ name: 'Ivan Demovsky', type: 'person' }],
  algorithm: 'v2',
  review_threshold: 0.7,
  fail_threshold: 0.9,
  matches: [
    {
      entity_id: 'e1',
      score: 0.8734567891234,
      datasets: ['sanctions'],
      evidence: {
        features: { name: 0.91, dob: -0.1, nationality: 0 },
        matched_name: 'DEMOVSKY, Ivan "\u2028"',
      },
    },
  ],
  candidates: 3,
});

describe('withEvidenceJson (a value whose rows carry evidence serialised once)', () => {
  const row = (id: string, e: object = evidence()) => ({
    id,
    when: new Date('2026-11-23T19:00:00Z'),
    skipped: undefined,
    evidence: e,
    nothing: null,
    after: [1, 'two', { three: 3 }],
  });
  it('makes the bytes JSON.stringify makes, and leaves the rows as they were', () => {
    const rows = [row('a'), row('b', {}), row('c', { evidence: 'nested key of its own' })];
    const before = structuredClone(rows);
    expect(withEvidenceJson(rows, rows)).toBe(JSON.stringify(rows));
    const flow = { id: 'f', checks: rows, documents: [], client_metadata: { evidence: 'x' } };
    expect(withEvidenceJson(flow, flow.checks)).toBe(JSON.stringify(flow));
    expect(withEvidenceJson({ id: 'f', checks: [] }, [])).toBe(JSON.stringify({ id: 'f', checks: [] }));
    expect(withEvidenceJson([], [])).toBe('[]');
    expect(rows).toEqual(before);
    // a row that is not inside the value is a programming error, and the rows are restored
    const lost = row('lost');
    const e = lost.evidence;
    expect(() => withEvidenceJson({ id: 'x' }, [lost])).toThrow(/not inside/);
    expect(lost.evidence).toBe(e);
  });

  it('serialises each evidence once: the second use is the first text', () => {
    const e = evidence();
    const first = onceJson(e);
    e.candidates = 99;
    expect(onceJson(e)).toBe(first);
    const r = row('a', e);
    expect(withEvidenceJson([r], [r])).toContain(first);
  });
});

describe('JsonText as a jsonb parameter', () => {
  const pools: postgres.Sql[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
  });

  it("the service's pool sends the text as is; any other value as before", async () => {
    expect(serializeJsonb(new JsonText('{"a":1}'))).toBe('{"a":1}');
    expect(serializeJsonb('{"a":1}')).toBe('"{\\"a\\":1}"');
    expect(serializeJsonb({ a: 1 })).toBe('{"a":1}');
    const sql = connectSql(PG, 1);
    pools.push(sql);
    const value = [{ id: 'a', evidence: evidence() }];
    const [row] = await sql<{ raw: unknown; plain: unknown; text: unknown }[]>`
      select ${json(sql, new JsonText(withEvidenceJson(value, value)))}::jsonb as raw,
             ${json(sql, value)}::jsonb as plain, ${json(sql, 'a string')}::jsonb as text`;
    expect(row?.raw).toEqual(value);
    expect(row?.plain).toEqual(value);
    expect(row?.text).toBe('a string');
  });

  it('a pool without that serializer still sends the same JSON (toJSON)', async () => {
    const sql = postgres(PG, { max: 1, onnotice: () => {} });
    pools.push(sql);
    const value = { id: 'a', evidence: evidence() };
    const [row] = await sql<{ raw: unknown }[]>`
      select ${sql.json(new JsonText(JSON.stringify(value)) as unknown as postgres.JSONValue)}::jsonb as raw`;
    expect(row?.raw).toEqual(value);
  });
});
