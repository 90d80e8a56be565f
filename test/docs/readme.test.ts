// Issue 16: the README documents the list feeds, the supported Node versions (and HTTP_SERVER's choices) and every
// shipped dashboard and rule file; this keeps it so when any of them changes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Env } from '../../server/config.js';
import { REPO_ROOT } from '../helpers/shared-data.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('starts with the two commands that run the service and its tests', () => {
    const firstBlock = readme.split('```')[1] ?? '';
    expect(firstBlock).toMatch(/^npm ci && npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      engines: { node: string };
    };
    expect(pkg.scripts.start).toBeTruthy();
    expect(pkg.scripts.test).toBeTruthy();
  });

  it('names every supported Node major and every HTTP_SERVER choice', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const majors = [...pkg.engines.node.matchAll(/\^?(\d+)(?:\.\d+)?/g)].map((m) => m[1] as string);
    expect(majors.length).toBeGreaterThanOrEqual(3);
    const nodeParagraph = readme.slice(readme.indexOf('**Node versions:**'));
    expect(nodeParagraph).not.toBe(readme);
    for (const major of majors) expect(nodeParagraph.slice(0, 600)).toContain(major);
    const choices = (Env.properties.HTTP_SERVER.anyOf as { const: string }[]).map((c) => c.const);
    expect(choices).toEqual(['auto', 'uws', 'node']);
    for (const c of choices) expect(readme).toContain(`HTTP_SERVER=${c}`);
  });

  it('documents list feeds: the admin route and every promotion policy', () => {
    expect(readme).toContain('/admin/dataset_feeds');
    for (const word of ['"promote": "auto"', '"manual"', 'max_shrink_fraction', 'If-None-Match']) {
      expect(readme).toContain(word);
    }
  });

  it('names every shipped dashboard and rule file under deploy/', () => {
    const shipped = readdirSync(join(REPO_ROOT, 'deploy'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(REPO_ROOT.length + 1));
    expect(shipped).toEqual(
      expect.arrayContaining(['deploy/grafana/veriscreen-dashboard.json', 'deploy/prometheus/alerts.yml']),
    );
    for (const f of shipped) expect(readme).toContain(f);
  });
});
