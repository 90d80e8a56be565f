import { randomFillSync } from 'node:crypto';

/** A uuid's text, any version, either case. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

const POOL_IDS = 256;
const pool = Buffer.allocUnsafe(16 * POOL_IDS);
let next = POOL_IDS;
/** ASCII codes of each byte's two hex digits; an id's text is written into `text` and read out as one flat string
 * (a template of 20 pieces allocated a string per piece, ~0.8 kB an id, 6 % of a sync flow's allocations) */
const HEX_CODES = Buffer.from(
  Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0')).join(''),
);
const text = Buffer.alloc(36, '-');
/** where each of an id's 16 bytes goes in its 36-character text */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * Ids of the rows written many times a second (applicants, flows, checks, alerts, outbox events, audit rows): UUIDv7 (RFC 9562)
 * — the first 48 bits are the Unix time in milliseconds, the rest random (74 bits) with the version and variant
 * bits. Still a UUID to every reader; but consecutive ids land next to each other in their primary-key index, so an
 * insert touches the index's rightmost pages (in memory) instead of a random leaf of an index larger than memory
 * (docs/decisions/performance.md, "Time-ordered ids for the rows a flow writes").
 */
export function newId(now: number = Date.now()): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const o = 16 * next++;
  const b = pool;
  b.writeUIntBE(now, o, 6);
  b[o + 6] = ((b[o + 6] as number) & 0x0f) | 0x70;
  b[o + 8] = ((b[o + 8] as number) & 0x3f) | 0x80;
  for (let i = 0; i < 16; i++) {
    const v = 2 * (b[o + i] as number);
    const at = AT[i] as number;
    text[at] = HEX_CODES[v] as number;
    text[at + 1] = HEX_CODES[v + 1] as number;
  }
  return text.toString('latin1', 0, 36);
}
