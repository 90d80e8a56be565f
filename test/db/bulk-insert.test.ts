import { describe, expect, it } from 'vitest';
import { splitShared } from '../../server/db/bulk-insert.js';

interface Row {
  id: string;
  tenant_id: string;
  datasets: string[];
  reason_codes: string[];
  evidence: Record<string, unknown>;
  completed_at: Date;
  error: string | null;
}

const at = new Date('2026-11-23T04:00:00Z');
const row = (id: string, over: Partial<Row> = {}): Row => ({
  id,
  tenant_id: 't1',
  datasets: ['sanctions', 'pep'],
  reason_codes: [],
  evidence: { matches: [] },
  completed_at: at,
  error: null,
  ...over,
});
const COLUMNS = ['id', 'tenant_id', 'datasets', 'reason_codes', 'evidence', 'completed_at', 'error'] as const;

describe('splitShared (bulk inserts send the values every row shares once)', () => {
  it('shares scalars, arrays of scalars and Dates equal in every row; keeps the rest per row', () => {
    const rows = [row('a'), row('b', { completed_at: new Date(at.getTime()) })];
    const { shared, own } = splitShared(COLUMNS, rows);
    expect(shared).toEqual({
      tenant_id: 't1',
      datasets: ['sanctions', 'pep'],
      reason_codes: [],
      completed_at: at,
      error: null,
    });
    // an object (evidence) is never shared, even when equal
    expect(own).toEqual([
      { id: 'a', evidence: { matches: [] } },
      { id: 'b', evidence: { matches: [] } },
    ]);
  });

  it('keeps a column per row as soon as one row differs (order, length, null vs value)', () => {
    const rows = [
      row('a'),
      row('b', { datasets: ['pep', 'sanctions'], reason_codes: ['aml_pep_match'], error: 'x' }),
    ];
    const { shared, own } = splitShared(COLUMNS, rows);
    expect(Object.keys(shared).sort()).toEqual(['completed_at', 'tenant_id']);
    expect(own[1]).toEqual({
      id: 'b',
      datasets: ['pep', 'sanctions'],
      reason_codes: ['aml_pep_match'],
      evidence: { matches: [] },
      error: 'x',
    });
  });

  it('merged back, every row has exactly its own values (as the insert reads them: own over shared)', () => {
    const rows = [row('a'), row('b', { error: 'y' }), row('c', { completed_at: new Date(0) })];
    const { shared, own } = splitShared(COLUMNS, rows);
    expect(own.map((o) => JSON.parse(JSON.stringify({ ...shared, ...o })))).toEqual(
      rows.map((r) => JSON.parse(JSON.stringify(r))),
    );
  });

  it('one row: everything but objects is shared', () => {
    const { shared, own } = splitShared(COLUMNS, [row('a')]);
    expect(own).toEqual([{ evidence: { matches: [] } }]);
    expect(shared.id).toBe('a');
  });
});
