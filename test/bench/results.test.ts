// Where a bench writes its results: the repository's root is found from the compiled file's place.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, rootAbove } from '../../bench/results.js';

describe('rootAbove', () => {
  it('finds the nearest directory above that holds a package.json', () => {
    const top = mkdtempSync(join(tmpdir(), 'vs-root-'));
    writeFileSync(join(top, 'package.json'), '{}');
    mkdirSync(join(top, 'dist', 'bench'), { recursive: true });
    expect(rootAbove(join(top, 'dist', 'bench'))).toBe(top);
    expect(repoRoot()).toBe(rootAbove(process.cwd()));
  });

  it('throws, rather than looping for ever, when no directory above holds one (a bench copied out of the repo)', () => {
    const top = mkdtempSync(join(tmpdir(), 'vs-noroot-'));
    mkdirSync(join(top, 'dist', 'bench'), { recursive: true });
    expect(() => rootAbove(join(top, 'dist', 'bench'))).toThrow(/no package.json at or above/);
  });
});
