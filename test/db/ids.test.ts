import { describe, expect, it } from 'vitest';
import { newId } from '../../server/db/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId (UUIDv7)', () => {
  it('is a version-7, RFC variant UUID whose first 48 bits are the time in milliseconds', () => {
    const at = Date.UTC(2026, 10, 23, 4, 30, 0, 123);
    const id = newId(at);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts by creation time across milliseconds, and never repeats', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => newId(1_800_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 10; i < ids.length; i += 10) expect((ids[i - 1] as string) < (ids[i] as string)).toBe(true);
    expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
  });
});
