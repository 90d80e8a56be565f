import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ObjectStore } from '../storage/s3.js';

/** A permanent problem with a source (missing, refused, unparseable): retrying cannot help, so the version fails.
 * Anything else thrown while building (S3, Postgres, network) is transient and retried. */
export class SourceError extends Error {
  override name = 'SourceError';
}

export interface LocalSource {
  path: string;
  cleanup(): Promise<void>;
}

/** Makes a source URI readable as a local path: file:// and plain paths as they are; s3://bucket/key (a prefix
 * ending in / for directory formats) and https:// are downloaded to a temporary folder first. */
export async function localSource(uri: string, store: ObjectStore): Promise<LocalSource> {
  const isLocal = uri.startsWith('file://') || !/^[a-z][a-z0-9+.-]*:\/\//i.test(uri);
  if (isLocal) {
    const path = uri.startsWith('file://') ? fileURLToPath(uri) : uri;
    if (!existsSync(path)) throw new SourceError(`source not found: ${uri}`);
    return { path, cleanup: async () => {} };
  }
  const dir = await mkdtemp(join(tmpdir(), 'veriscreen-src-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    if (uri.startsWith('s3://')) {
      const u = new URL(uri);
      const bucket = u.hostname;
      const key = decodeURIComponent(u.pathname.replace(/^\//, ''));
      if (key.endsWith('/') || key === '') {
        let count = 0;
        for await (const objKey of store.list(key, bucket)) {
          if (objKey.endsWith('/')) continue;
          const body = await store.getFrom(bucket, objKey);
          if (!body) continue;
          const target = join(dir, objKey.slice(key.length));
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, body);
          count++;
        }
        if (count === 0) throw new SourceError(`no objects under ${uri}`);
        return { path: dir, cleanup };
      }
      const body = await store.getFrom(bucket, key);
      if (!body) throw new SourceError(`object not found: ${uri}`);
      const target = join(dir, basename(key));
      await writeFile(target, body);
      return { path: target, cleanup };
    }
    if (uri.startsWith('https://') || uri.startsWith('http://')) {
      const res = await fetch(uri);
      if (!res.ok) {
        const msg = `download of ${uri} failed: HTTP ${res.status}`;
        // 4xx: the URI is wrong or refused (permanent); 5xx: the server may recover (transient)
        throw res.status < 500 ? new SourceError(msg) : new Error(msg);
      }
      const target = join(dir, basename(new URL(uri).pathname) || 'source');
      await writeFile(target, Buffer.from(await res.arrayBuffer()));
      return { path: target, cleanup };
    }
    throw new SourceError(`unsupported source URI scheme: ${uri}`);
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** SHA-256 over the source's files (names and bytes, in name order), streamed. */
export async function checksumPath(path: string): Promise<string> {
  const hash = createHash('sha256');
  const files: string[] = [];
  const walk = async (p: string) => {
    const s = await stat(p);
    if (s.isDirectory()) {
      for (const name of (await readdir(p)).sort()) await walk(join(p, name));
    } else files.push(p);
  };
  await walk(path);
  for (const f of files) {
    hash.update(basename(f));
    for await (const chunk of createReadStream(f)) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
