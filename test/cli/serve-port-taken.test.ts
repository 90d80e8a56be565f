import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uwsNativeAvailable } from '../../server/http/transport.js';
import { BIN, type CliResult } from '../helpers/cli.js';
import { freePort } from '../helpers/private-services.js';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type TestApp } from '../helpers/test-app.js';

// Issue 32 item 3: a second `serve` on a port already in use must refuse to start — a clear message and a non-zero
// exit — on both transports. uWebSockets.js listened with SO_REUSEPORT, so a second one started silently and the
// kernel split connections between two services (an operator's admin token got 401 from the other one).

const uws = uwsNativeAvailable();
const holders: Record<string, TestApp> = {};
const s3Dir = join(tmpdir(), `vs-port-${randomBytes(4).toString('hex')}`);

beforeAll(async () => {
  // a fixed port, as an operator gives one (uWebSockets.js shares only a port it was asked for by number)
  if (uws)
    holders.uws = await startTestApp({ sources: null, env: { HTTP_SERVER: 'uws' }, port: await freePort() });
  holders.node = await startTestApp({ sources: null, env: { HTTP_SERVER: 'node' }, port: await freePort() });
});
afterAll(async () => {
  for (const h of Object.values(holders)) await h.close();
  await rm(s3Dir, { recursive: true, force: true });
});

/** `bin/veriscreen serve` on the holder's port, with the holder's database; nothing else of it is shared. A serve
 * that starts anyway (the bug) is stopped after 90 s and reported as such. */
function serveOn(holder: TestApp, transport: 'uws' | 'node'): Promise<CliResult> {
  const port = new URL(holder.url).port;
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ROLE: 'api',
      HTTP_SERVER: transport,
      HOST: '127.0.0.1',
      PORT: port,
      DATABASE_URL: holder.dbUrl,
      ADMIN_TOKEN: 'another-deployment-token',
      NATS_NAMESPACE: `vport${randomBytes(4).toString('hex')}`,
      LOCAL_S3_PORT: '0',
      LOCAL_S3_DIR: s3Dir,
      MATCHER_THREADS: '1',
      LOG_LEVEL: 'warn',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const guard = setTimeout(() => {
    stderr += '\n(still running after 90 s: stopped by the test)';
    child.kill('SIGKILL');
  }, 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('serve on a port already in use', () => {
  for (const holderName of ['uws', 'node'] as const) {
    for (const second of ['uws', 'node'] as const) {
      it.skipIf(!uws && (holderName === 'uws' || second === 'uws'))(
        `held by ${holderName}: a second serve on ${second} exits 1 with one clear line`,
        { timeout: 120_000 },
        async () => {
          const holder = holders[holderName] as TestApp;
          const r = await serveOn(holder, second);
          expect(r.code, r.stderr).toBe(1);
          const port = new URL(holder.url).port;
          expect(r.stderr).toContain(
            `veriscreen: cannot listen on 127.0.0.1:${port}: the address is already in use`,
          );
          expect(r.stderr).not.toMatch(/\n\s+at /); // one line, no stack
          // the holder still answers every request, with its own admin token
          for (let i = 0; i < 20; i++) {
            const tenant = await createTenant(holder, { name: `Still here ${i}` });
            expect(tenant.id).toBeTruthy();
          }
          const wrong = await call(holder.url, 'GET', '/admin/fatf_listings', {
            admin: 'another-deployment-token',
          });
          expect(wrong.status).toBe(401);
        },
      );
    }
  }
});
