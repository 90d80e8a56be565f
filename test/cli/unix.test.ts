// Issue 16, "CLI as a Unix tool": help without side effects, --version, unknown options refused before anything
// runs, exit statuses that say whether every record went through, numbered error lines, no silent misses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../ingest/entity.js';
import { CompareSchema } from '../../schemas/subjects.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/shared-data.js';

const DEMO = join(REPO_ROOT, 'ingest', 'fixtures', 'demo');
// every command that touched a dependency would fail on this address: exit 0 proves nothing ran
const env = {
  ...process.env,
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
};

const cli = (args: string[], input = '') => runCli(args, { input, env });

const jsonLines = (s: string) =>
  s
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const COMMANDS = ['serve', 'migrate', 'ingest', 'screen', 'compare', 'face-match', 'read-document'];

describe('bin/veriscreen as a Unix tool', () => {
  it('--help and -h on every command print its usage and exit 0 without running it', async () => {
    // -h anywhere among other (even wrong) arguments wins
    const args = COMMANDS.map((c, i) => (i % 2 ? [c, '--help'] : [c, '--format', 'xml', '-h']));
    const runs = await Promise.all(args.map((a) => cli(a)));
    runs.forEach((r, i) => {
      const c = COMMANDS[i];
      expect(r, c).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout, c).toMatch(new RegExp(`^veriscreen ${c}\\b`));
      expect(r.stdout, c).toMatch(/Exit status/);
    });
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.stdout).toContain(c);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const r = await cli(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `veriscreen ${version}\n` });
  });

  it('an unknown option, command or stray argument is one line naming it, exit 2, before anything runs', async () => {
    const cases: [string[], RegExp][] = [
      [['screen', '--list', `ofac_sdn_csv:${DEMO}`, '--limt', '2'], /unknown option --limt/],
      [['serve', '--port', '8080'], /unknown option --port/],
      [['ingest', '--format', 'ofac_sdn_csv', '--source', DEMO, '--promte'], /unknown option --promte/],
      [
        ['ingest', '--format', 'ofac_sdn_csv', '--source', DEMO, '--promote', 'yes'],
        /unexpected argument "yes"/,
      ],
      [['screen', '--list'], /--list needs a value/],
      [['compare', '-x'], /unknown option -x/],
      [['frobnicate'], /unknown command "frobnicate"/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args)));
    runs.forEach((r, i) => {
      expect(r.code, cases[i]?.[0].join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(cases[i]?.[1] as RegExp);
    });
  });

  it('screen: a malformed DOB is reported but the name is still screened; failed lines carry their line number and make the exit status 1', async () => {
    const input = [
      JSON.stringify({ ref: 'dob', name: 'Ivan Demovsky', date_of_birth: '1969-7-16' }),
      '',
      '{not json',
      JSON.stringify({ ref: 'ok', name: 'Zephyrine Quorrelby-Atwater' }),
      JSON.stringify({ ref: 'noname', name: '' }),
    ].join('\n');
    const r = await cli(['screen', '--list', `ofac_sdn_csv:${DEMO}`], input);
    expect(r.code).toBe(1);
    const out = jsonLines(r.stdout);
    expect(out).toHaveLength(4);
    expect(out[0]).toMatchObject({
      ref: 'dob',
      line: 1,
      matches: [expect.objectContaining({ entity_id: 'us_ofac_sdn:900001' })],
      warnings: [{ field: 'date_of_birth', message: expect.stringMatching(/pattern.*ignored/) }],
    });
    expect(out[1]).toMatchObject({ ref: null, line: 3, error: { code: 'json_invalid' } });
    expect(out[2]).toMatchObject({ ref: 'ok', matches: [] });
    expect(out[2]).not.toHaveProperty('error');
    expect(out[3]).toMatchObject({ ref: 'noname', line: 5, error: { code: 'validation_failed' } });
    expect(r.stderr).toMatch(/2 of 4 subjects failed/);
    expect(r.stderr).toMatch(/1 of 4 subjects had ignored fields/);

    const clean = await cli(
      ['screen', '--list', `ofac_sdn_csv:${DEMO}`],
      `${JSON.stringify({ name: 'x y' })}\n`,
    );
    expect(clean.code).toBe(0);
  });

  it('screen: a missing list path is one clear line, exit 1', async () => {
    const r = await cli(['screen', '--list', 'ofac_sdn_csv:/nonexistent/sdn.csv']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'veriscreen: --list ofac_sdn_csv:/nonexistent/sdn.csv: no such file or directory\n',
    );
  });

  it('compare refuses an unknown schema instead of scoring it 0; exit 1 with a count', async () => {
    const r = await cli(
      ['compare'],
      [
        JSON.stringify({ schema: 'Persn', a: 'Vladimir Putin', b: 'Vladimir Putin' }),
        JSON.stringify({ schema: 'Company', a: 'Carvana Company', b: 'CARVANA COMPAYN' }),
      ].join('\n'),
    );
    expect(r.code).toBe(1);
    const out = jsonLines(r.stdout);
    expect(out[0]).toMatchObject({
      line: 1,
      error: { code: 'validation_failed', message: expect.stringMatching(/^schema: must be one of: Person/) },
    });
    expect(out[1]).toMatchObject({ match: true });
    expect(r.stderr).toMatch(/1 of 2 pairs failed/);
    // the schema's list is the matcher's
    expect((CompareSchema as { enum?: unknown }).enum).toEqual([...ENTITY_SCHEMAS]);
  });
});
