// File access shared by the parsers: text streams (transparently gunzipped for *.gz), JSON-lines readers,
// and directory helpers with clear errors for missing paths.

import { createReadStream, type ReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Bytes this process has read from list files (compressed bytes for *.gz; whole-file reads are not counted): what a
 * long ingest shows its progress by, against pathBytes() of its sources. */
let closedBytes = 0;
const openFiles = new Set<ReadStream>();
export function listBytesRead(): number {
  let n = closedBytes;
  for (const s of openFiles) n += s.bytesRead;
  return n;
}

/** The size of a file, or of every file under a directory. */
export async function pathBytes(p: string): Promise<number> {
  const st = await stat(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const ent of await readdir(p, { withFileTypes: true })) n += await pathBytes(path.join(p, ent.name));
  return n;
}

export function openStream(file: string): Readable {
  const raw = createReadStream(file);
  openFiles.add(raw);
  raw.once('close', () => {
    openFiles.delete(raw);
    closedBytes += raw.bytesRead;
  });
  if (!file.endsWith('.gz')) return raw;
  const gunzip = createGunzip();
  // Forward read errors (ENOENT, EACCES) so consumers of the gunzip stream see them.
  raw.on('error', (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}

/** The file as a stream of UTF-8 string chunks. */
export function openText(file: string): AsyncIterable<string> {
  const s = openStream(file);
  s.setEncoding('utf8');
  return s as AsyncIterable<string>;
}

export interface TextLine {
  text: string;
  /** 1-based */
  line: number;
}

/** Lines without their terminators (CRLF tolerant), BOM stripped from the first one. */
export async function* readLines(file: string): AsyncGenerator<TextLine> {
  const rl = createInterface({ input: openStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of rl) {
    line++;
    yield { text: line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, line };
  }
}

export async function assertExists(p: string, kind: 'file' | 'directory'): Promise<void> {
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(p);
  } catch {
    throw new Error(`ingest: ${kind} not found: ${p}`);
  }
  if (kind === 'file' && !st.isFile()) throw new Error(`ingest: expected a file but found a directory: ${p}`);
  if (kind === 'directory' && !st.isDirectory()) throw new Error(`ingest: expected a directory: ${p}`);
}

export async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** All files under `dir` (recursively) whose name ends with one of `exts`, sorted for a stable order. */
export async function listFiles(dir: string, exts: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const ent of entries) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) await walk(p);
      else if (exts.some((x) => ent.name.endsWith(x))) out.push(p);
    }
  };
  await walk(dir);
  return out;
}
