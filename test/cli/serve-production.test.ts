import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalS3, startLocalS3 } from '../../server/storage/local-s3.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { dropDatabase } from '../helpers/test-app.js';

// Issue 12 item 12: a production start never prints the configured ADMIN_TOKEN (stdout goes to log collectors).
// Issue 16: and prints no banner at all, only JSON log lines.

const BIN = join(REPO_ROOT, 'bin', 'veriscreen');

describe('bin/veriscreen serve in production', () => {
  const id = randomBytes(4).toString('hex');
  const db = `vs_prod_${id}`;
  const s3Dir = join(tmpdir(), `vs-prod-s3-${id}`);
  let server: ChildProcess | undefined;
  let s3: LocalS3 | undefined;
  afterAll(async () => {
    server?.kill('SIGKILL');
    await s3?.close();
    await dropDatabase(db);
    await rm(s3Dir, { recursive: true, force: true });
  });

  it('logs where it listens as a JSON line, no banner, never the admin token', async () => {
    s3 = await startLocalS3({ directory: s3Dir });
    const adminToken = `prod-admin-${randomBytes(16).toString('hex')}`;
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${db}`,
      ADMIN_TOKEN: adminToken,
      PII_HASH_KEY: randomBytes(24).toString('hex'),
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      NATS_NAMESPACE: `vp${id}`,
      PORT: '0',
      MATCHER_THREADS: '1',
      LOG_LEVEL: 'info',
    };
    server = spawn(process.execPath, [BIN, 'serve'], { env, cwd: REPO_ROOT });
    let out = '';
    let stdout = '';
    server.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      stdout += d.toString();
    });
    server.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
      server?.stdout?.on('data', () => {
        const m = /"msg":"listening on (http:\/\/[\d.]+:\d+)"/.exec(stdout);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    expect(out).not.toContain(adminToken);
    // issue 16: no banner in production, stdout is JSON log lines only
    expect(out).not.toMatch(/admin token|Veriscreen listening/);
    for (const l of stdout.trim().split('\n')) expect(() => JSON.parse(l), l).not.toThrow();
    // the configured token works
    const admin = await fetch(`${url}/admin/fatf_listings`, { headers: { 'x-admin-token': adminToken } });
    expect(admin.status).toBe(200);
    const exit = new Promise<number | null>((resolve) => server?.on('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exit).toBe(0);
    server = undefined;
    expect(out).not.toContain(adminToken);
  });
});
