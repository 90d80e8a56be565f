// Length-prefixed binary container for IndexData (stored in S3). Layout, little endian:
//   magic "VSIX" | u32 format | u32 header length | header JSON (version, meta, buffer names + lengths)
//   | buffers concatenated in header order, each padded to 8 bytes.
import type { IndexData } from './types.js';

const MAGIC = 0x58495356; // "VSIX" read as little-endian u32
const FORMAT = 1;

interface Header {
  version: string;
  meta: Record<string, number | string>;
  buffers: { name: string; length: number }[];
}

const pad8 = (n: number): number => (n + 7) & ~7;

export function serializeIndex(data: IndexData): Buffer {
  const names = Object.keys(data.buffers).sort();
  const header: Header = {
    version: data.version,
    meta: data.meta,
    buffers: names.map((name) => ({ name, length: data.buffers[name]!.byteLength })),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const start = pad8(12 + headerBytes.length);
  let total = start;
  for (const b of header.buffers) total += pad8(b.length);
  const out = Buffer.alloc(total);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(FORMAT, 4);
  out.writeUInt32LE(headerBytes.length, 8);
  headerBytes.copy(out, 12);
  let o = start;
  for (const b of header.buffers) {
    out.set(new Uint8Array(data.buffers[b.name]!), o);
    o += pad8(b.length);
  }
  return out;
}

export function deserializeIndex(buf: Buffer): IndexData {
  if (buf.length < 12 || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a veriscreen index (bad magic)');
  const format = buf.readUInt32LE(4);
  if (format !== FORMAT) throw new Error(`unsupported index format ${format}`);
  const hlen = buf.readUInt32LE(8);
  if (12 + hlen > buf.length) throw new Error('truncated index header');
  const header = JSON.parse(buf.subarray(12, 12 + hlen).toString('utf8')) as Header;
  const buffers: Record<string, SharedArrayBuffer> = {};
  let o = pad8(12 + hlen);
  for (const b of header.buffers) {
    if (o + b.length > buf.length) throw new Error(`truncated index buffer ${b.name}`);
    const sab = new SharedArrayBuffer(b.length);
    new Uint8Array(sab).set(buf.subarray(o, o + b.length));
    buffers[b.name] = sab;
    o += pad8(b.length);
  }
  return { version: header.version, buffers, meta: header.meta };
}
