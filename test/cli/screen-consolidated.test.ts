// `bin/veriscreen screen` over several real lists prints one match per entity with its list entries (issue 30):
// Tanchon Commercial Bank is on the UN, UK and OFAC SDN lists and comes out once, naming the three.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';

interface Line {
  ref: string | null;
  matches: {
    entity_id: string;
    score: number;
    consolidated_id: string;
    sources: { entity_id: string; source: string; matched_name: string; score: number; programs: string[] }[];
  }[];
}

describe.skipIf(!HAS_SHARED_DATA)('bin/veriscreen screen: one match per entity', () => {
  it('prints Tanchon Commercial Bank once with its UN, UK and OFAC entries', async () => {
    const r = await runCli(
      [
        'screen',
        '--list',
        `un_xml:${sharedPath('un_sc', 'UN_consolidated.xml')}`,
        '--list',
        `uk_csv:${sharedPath('uk_sanctions_list_derived')}`,
        '--list',
        `ofac_sdn_csv:${sharedPath('ofac_sdn')}`,
        '--limit',
        '5',
      ],
      {
        input: `${JSON.stringify({ ref: 'bank', name: 'Tanchon Commercial Bank', type: 'company' })}\n${JSON.stringify({ ref: 'ryonbong', name: 'Korea Ryonbong General Corporation', type: 'company' })}\n`,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/after linking \d+ across lists/);
    const [bank, ryonbong] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    const top = bank!.matches.filter((m) => m.score >= 0.99);
    expect(top).toHaveLength(1);
    expect(top[0]!.consolidated_id).toBe('un_sc:690752');
    expect(top[0]!.sources.map((s) => s.entity_id).sort()).toEqual([
      'gb_fcdo:DPR0195',
      'un_sc:690752',
      'us_ofac_sdn:9346',
    ]);
    expect(top[0]!.sources.every((s) => s.matched_name.toUpperCase() === 'TANCHON COMMERCIAL BANK')).toBe(
      true,
    );
    // no entity appears twice in one line's matches
    for (const line of [bank!, ryonbong!]) {
      const ids = line.matches.flatMap((m) => m.sources.map((s) => s.entity_id));
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(ryonbong!.matches[0]!.sources.length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
