import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './shared-data.js';

export const BIN = join(REPO_ROOT, 'bin', 'veriscreen');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs bin/veriscreen with `input` on its stdin (closed at once when empty) and collects its output and exit status. */
export function runCli(
  args: string[],
  opts: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return runNode([BIN, ...args], opts);
}

/** Runs this Node with `args` in the repository root, `input` on its stdin, and collects its output and exit status. */
export function runNode(
  args: string[],
  opts: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: opts.env ?? process.env, cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
