import { randomFillSync } from 'node:crypto';

/** A uuid's text, any version, either case. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

const POOL_IDS = 256;
const pool = Buffer.allocUnsafe(16 * POOL_IDS);
let next = POOL_IDS;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Ids of the rows written many times a second (applicants, flows, checks, alerts, outbox events, audit rows): UUIDv7 (RFC 9562)
 * — the first 48 bits are the Unix time in milliseconds, the rest random (74 bits) with the version and variant
 * bits. Still a UUID to every reader; but consecutive ids land next to each other in their primary-key index, so an
 * insert touches the index's rightmost pages (in memory) instead of a random leaf of an index larger than memory
 * (docs/decisions.md, "Sync flow throughput").
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
  const h = (i: number) => HEX[b[o + i] as number] as string;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}
