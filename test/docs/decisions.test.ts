// docs/decisions.md is an index of short decision records kept in docs/decisions/<area>.md. Every record has the
// same four fields, and the index lists every record (UPDATE_DOCS=1 rewrites it from the area files).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';

const DIR = join(REPO_ROOT, 'docs', 'decisions');
const INDEX = join(REPO_ROOT, 'docs', 'decisions.md');
const START = '<!-- index start: UPDATE_DOCS=1 npx vitest run test/docs/decisions.test.ts rewrites it -->';
const END = '<!-- index end -->';
/** Areas in reading order; an area file not named here comes last. */
const ORDER = [
  'api',
  'auth',
  'flows',
  'checks',
  'datasets',
  'batches-monitors',
  'alerts-webhooks',
  'applicants',
  'identity',
  'journey',
  'matcher',
  'performance',
  'operations',
  'dashboard',
];
const FIELDS = ['Decision', 'Why', 'Consequence', 'Test'];

interface Area {
  file: string;
  title: string;
  records: { title: string; anchor: string; body: string }[];
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(titles: string[]): string[] {
  const seen = new Map<string, number>();
  return titles.map((t) => {
    const base = t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}-${n}` : base;
  });
}

function areas(): Area[] {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.md'));
  const rank = (f: string) => {
    const i = ORDER.indexOf(f.replace(/\.md$/, ''));
    return i < 0 ? ORDER.length : i;
  };
  return files
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((file) => {
      const text = readFileSync(join(DIR, file), 'utf8');
      const title = (/^# Decisions: (.+)$/m.exec(text)?.[1] ?? file).trim();
      const headings = text.split('\n').filter((l) => /^#{1,6} /.test(l));
      const all = anchors(headings.map((h) => h.replace(/^#+ /, '')));
      const parts = text.split(/^### /m).slice(1);
      const records = parts.map((p) => {
        const [head = '', ...rest] = p.split('\n');
        const anchor = all[headings.indexOf(`### ${head}`)] ?? '';
        return { title: head.trim(), anchor, body: rest.join('\n').split(/^## /m)[0] ?? '' };
      });
      return { file, title, records };
    });
}

function renderIndex(list: Area[]): string {
  return list
    .map((a) =>
      [
        `### ${a.title[0]?.toUpperCase()}${a.title.slice(1)} ([decisions/${a.file}](decisions/${a.file}))`,
        '',
        ...a.records.map(
          (r) => `- [${r.title.replace(/([[\]])/g, '\\$1')}](decisions/${a.file}#${r.anchor})`,
        ),
      ].join('\n'),
    )
    .join('\n\n');
}

describe('decision records', () => {
  const list = areas();

  it('every record says its decision, why, its consequence and the test that holds it, in that order', () => {
    expect(list.length).toBeGreaterThan(5);
    for (const a of list)
      for (const r of a.records) {
        const fields = [...r.body.matchAll(/^- \*\*(\w+):\*\* \S/gm)].map((m) => m[1]);
        expect(fields, `${a.file}: ${r.title}`).toEqual(FIELDS);
      }
  });

  it('record titles are unique within an area', () => {
    for (const a of list) {
      const titles = a.records.map((r) => r.title);
      expect(new Set(titles).size, a.file).toBe(titles.length);
    }
  });

  it('docs/decisions.md indexes every record', () => {
    const doc = readFileSync(INDEX, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const next = `${doc.slice(0, start + START.length)}\n${renderIndex(list)}\n${doc.slice(end)}`;
    if (next !== doc && process.env.UPDATE_DOCS === '1') writeFileSync(INDEX, next);
    else expect(doc).toBe(next);
  });
});
