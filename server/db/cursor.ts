import { invalid } from '../errors.js';

// Opaque keyset cursors over a table's monotonically increasing seq column: stable under concurrent inserts.
export function encodeCursor(seq: number | string): string {
  return Buffer.from(JSON.stringify({ v: 1, s: String(seq) })).toString('base64url');
}

export function decodeCursor(cursor: string, param = 'after'): string {
  try {
    const obj = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    if (obj.v === 1 && typeof obj.s === 'string' && /^\d{1,18}$/.test(obj.s)) return obj.s;
  } catch {
    // fall through to the validation error
  }
  throw invalid(
    ['query', param],
    'Invalid cursor: pass next_cursor from a previous page unchanged',
    'cursor_invalid',
  );
}

/** Given limit+1 rows, returns the page and the cursor of its last row when more exist. */
export function page<T extends { seq: string }>(
  rows: T[],
  limit: number,
): { rows: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { rows, next_cursor: null };
  const out = rows.slice(0, limit);
  const last = out[out.length - 1];
  return { rows: out, next_cursor: last ? encodeCursor(last.seq) : null };
}

/** The page size and decoded `after` cursor of a list query (limit 1–200 is validated by the schema; default 50). */
export function pageArgs(q: { limit?: number | undefined; after?: string | undefined }): {
  limit: number;
  after: string | null;
} {
  return { limit: q.limit ?? 50, after: q.after ? decodeCursor(q.after) : null };
}
