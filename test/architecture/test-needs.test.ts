// The split behind `npm run test:unit` (test/helpers/test-needs.ts): what a test file needs is read from its imports,
// through the helpers it uses, so a file that starts the app, a browser, the CLI or a model is never a unit test.
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { type Need, needsOf, testFiles, unitTestFiles } from '../helpers/test-needs.js';

const CASES: [file: string, needs: Need[]][] = [
  ['test/matcher/rules.test.ts', []],
  ['test/checks/sub-checks.test.ts', []], // imports the document reader's module, creates no reader
  ['test/outbox/event-catalogue.test.ts', []], // uses openapi-check, which calls apps but starts none
  ['test/http/flows-lifecycle.test.ts', ['services']], // startTestApp
  ['test/http/outages.test.ts', ['services']], // private instances
  ['test/cli/unix.test.ts', ['build']], // runs bin/veriscreen (dist/)
  ['test/screening/matcher-pool.test.ts', ['build']], // matcher threads run dist/matcher/worker.js
  ['test/identity/pose.test.ts', ['models']], // createFaceAnalyzer
  ['test/identity/document.test.ts', ['models']], // createDocumentReader
  ['test/e2e/cors.test.ts', ['browser', 'services']],
];

describe('what a test file needs', () => {
  it.each(CASES)('%s needs %j', (file, needs) => {
    expect(needsOf(REPO_ROOT, file)).toEqual(needs);
  });

  it('the unit files are the test files that need nothing, and there are both kinds', () => {
    const all = testFiles(REPO_ROOT);
    const unit = unitTestFiles(REPO_ROOT);
    expect(unit.length).toBeGreaterThan(30);
    expect(all.length - unit.length).toBeGreaterThan(30);
    expect(unit).toContain('test/architecture/test-needs.test.ts');
    expect(unit.every((f) => all.includes(f))).toBe(true);
  });
});
