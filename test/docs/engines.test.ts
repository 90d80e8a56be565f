import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';

// Issue 32 item 14: `npm ci` on Node 20 warned EBADENGINE (@nats-io/nuid 3 declares Node ≥ 22) although the README
// and package.json support Node 20. Every installed package's `engines.node` must allow every Node version ours
// does, so that `npm ci` is quiet on each of them (packages for other platforms, optional, are not installed).

/** semver, as npm itself checks engines (a dependency of the toolchain; no types of its own here). */
const semver = createRequire(import.meta.url)('semver') as {
  subset(sub: string, dom: string): boolean;
};

interface LockEntry {
  engines?: { node?: string };
  optional?: boolean;
}

describe('Node versions', () => {
  it("every locked package's engines.node covers package.json's engines.node", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const ours = pkg.engines.node;
    const narrower = Object.entries(lock.packages)
      .filter(([path, e]) => path !== '' && !e.optional && e.engines?.node)
      .filter(([, e]) => !semver.subset(ours, e.engines?.node as string))
      .map(([path, e]) => `${path} wants node ${e.engines?.node}`);
    expect(narrower).toEqual([]);
  });

  it('the README names the same Node versions as package.json', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('**Node versions:** 20 (≥ 20.19), 22 (≥ 22.12) and 24');
  });
});
