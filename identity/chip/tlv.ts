// BER-TLV as the eMRTD's elementary files use it (ICAO 9303-10): multi-byte tags (5F1F, 7F61) and definite
// lengths up to four bytes. Every read is bounds-checked: truncated or garbage bytes give a ChipFormatError, never a
// read past the end.

/** Bytes that are not what they claim to be: `code` is machine-readable, the message says where. */
export class ChipFormatError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChipFormatError';
  }
}

export interface Tlv {
  tag: number;
  /** whether the tag's constructed bit is set (its value is a sequence of TLVs) */
  constructed: boolean;
  value: Uint8Array;
  /** offset just after this TLV in the buffer it was read from */
  end: number;
}

/** Reads the TLV at `offset`. */
export function readTlv(buf: Uint8Array, offset = 0, what = 'TLV'): Tlv {
  const fail = (why: string) => new ChipFormatError('tlv_malformed', `${what}: ${why} at byte ${offset}`);
  let i = offset;
  const first = buf[i++];
  if (first === undefined) throw fail('no tag');
  let tag = first;
  if ((first & 0x1f) === 0x1f) {
    let b: number | undefined;
    do {
      b = buf[i++];
      if (b === undefined) throw fail('tag cut short');
      tag = tag * 256 + b;
      if (tag > 0xffffff) throw fail('tag too long');
    } while (b & 0x80);
  }
  const l0 = buf[i++];
  if (l0 === undefined) throw fail('no length');
  let length = l0;
  if (l0 & 0x80) {
    const n = l0 & 0x7f;
    if (n === 0 || n > 4) throw fail('unsupported length form');
    length = 0;
    for (let k = 0; k < n; k++) {
      const b = buf[i++];
      if (b === undefined) throw fail('length cut short');
      length = length * 256 + b;
    }
  }
  if (i + length > buf.length)
    throw fail(`length ${length} runs past the end (${buf.length - i} bytes left)`);
  return { tag, constructed: (first & 0x20) !== 0, value: buf.subarray(i, i + length), end: i + length };
}

/** Reads a whole buffer as one TLV of the expected tag: nothing may follow it. */
export function readWhole(buf: Uint8Array, tag: number, what: string): Tlv {
  const t = readTlv(buf, 0, what);
  if (t.tag !== tag) {
    throw new ChipFormatError('tag_unexpected', `${what}: tag ${hex(t.tag)}, expected ${hex(tag)}`);
  }
  if (t.end !== buf.length) {
    throw new ChipFormatError(
      'tlv_malformed',
      `${what}: ${buf.length - t.end} bytes after the end of its TLV`,
    );
  }
  return t;
}

/** The TLVs one after another in `value`. */
export function children(value: Uint8Array, what = 'TLV'): Tlv[] {
  const out: Tlv[] = [];
  for (let i = 0; i < value.length; ) {
    const t = readTlv(value, i, what);
    out.push(t);
    i = t.end;
  }
  return out;
}

/** The first TLV with `tag`, searched depth first through constructed values. */
export function findTlv(value: Uint8Array, tag: number, what = 'TLV'): Tlv | undefined {
  for (const t of children(value, what)) {
    if (t.tag === tag) return t;
    if (t.constructed) {
      const inner = findTlv(t.value, tag, what);
      if (inner) return inner;
    }
  }
  return undefined;
}

export const hex = (n: number) => `0x${n.toString(16).toUpperCase()}`;

export const toHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
