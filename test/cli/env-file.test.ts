import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Env } from '../../server/config.js';
import { BIN, type CliResult } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/shared-data.js';

// Issue 32 item 14: the README pointed newcomers at `.env.example`, which nothing loaded and which lacked
// NATS_NAMESPACE (and twenty more). `bin/veriscreen` now loads `.env` from the working directory (the environment
// wins), and `.env.example` names every variable the configuration reads.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vs-env-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `bin/veriscreen serve` in `cwd`, with the test's environment minus the variables under test. */
function serveIn(cwd: string, env: Record<string, string>): Promise<CliResult> {
  const base = { ...process.env };
  for (const k of ['PORT', 'LOG_LEVEL', 'NODE_ENV']) delete base[k];
  return new Promise((resolve, reject) => {
    // nothing to connect to: a serve whose configuration passes fails at its first dependency, never starts
    const nowhere = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', NATS_NAMESPACE: 'vs_env_file' };
    const child = spawn(process.execPath, [BIN, 'serve'], { cwd, env: { ...base, ...nowhere, ...env } });
    const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('configuration files', () => {
  it('.env.example names every variable the configuration reads', async () => {
    const example = await readFile(join(REPO_ROOT, '.env.example'), 'utf8');
    const named = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const missing = Object.keys(Env.properties).filter((k) => !named.has(k));
    expect(missing).toEqual([]);
  });

  it('a .env in the working directory is read; a variable set in the environment wins over it', async () => {
    await writeFile(join(dir, '.env'), 'PORT=not-a-port   # a comment\nLOG_LEVEL=loud\n');
    const fromFile = await serveIn(dir, {});
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toMatch(/^veriscreen: invalid configuration: .*PORT.*LOG_LEVEL|LOG_LEVEL.*PORT/);
    const envWins = await serveIn(dir, { LOG_LEVEL: 'info' });
    expect(envWins.code).toBe(1);
    expect(envWins.stderr).toContain('PORT');
    expect(envWins.stderr).not.toContain('LOG_LEVEL');
  });
});
