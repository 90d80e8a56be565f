// Entity consolidation (matcher/consolidate.ts): one table row per linking rule and per guard, then the grouping
// (never two entries of one source in an entity), determinism, and the one-match-per-entity screen.
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../ingest/entity.js';
import {
  clustersFrom,
  compatibleSchemas,
  consolidate,
  consolidatedIdOf,
  LINK_RULES,
  type LinkRule,
} from '../../matcher/consolidate.js';
import { buildIndex, DEFAULT_POLICY, openIndex } from '../../matcher/index.js';
import { LINK_RULES as API_LINK_RULES } from '../../schemas/datasets.js';
import { deltaEntries } from '../../server/monitors/monitor-jobs.js';
import { listedEntity } from '../helpers/entities.js';

const un = (id: string, schema: Entity['schema'], names: string[], extra: Partial<Entity> = {}) =>
  listedEntity(id, schema, names, { source: 'un_sc', ...extra });
const uk = (id: string, schema: Entity['schema'], names: string[], extra: Partial<Entity> = {}) =>
  listedEntity(id, schema, names, { source: 'gb_fcdo', ...extra });
const ofac = (id: string, schema: Entity['schema'], names: string[], extra: Partial<Entity> = {}) =>
  listedEntity(id, schema, names, { source: 'us_ofac_sdn', ...extra });
const csl = (id: string, schema: Entity['schema'], names: string[], extra: Partial<Entity> = {}) =>
  listedEntity(id, schema, names, { source: 'us_csl', ...extra });

const ids = (type: string, value: string, country?: string) => ({
  identifiers: [{ type, value, ...(country ? { country } : {}) }],
});

interface Row {
  title: string;
  entities: Entity[];
  /** the expected link (a, b, rule), or null: no link */
  link: [string, string, LinkRule] | null;
}

const ROWS: Row[] = [
  {
    title: 'identifier: the UN reference carried by the UK list links whatever the names',
    entities: [
      un('690752', 'Organization', ['TANCHON COMMERCIAL BANK'], ids('un_reference', 'KPE003')),
      uk('DPR0195', 'Organization', ['TANCHON BANK'], ids('un_reference', 'KPE003')),
    ],
    link: ['gb_fcdo:DPR0195', 'un_sc:690752', 'identifier'],
  },
  {
    title: 'identifier: the same IMO number on two vessels with agreeing names',
    entities: [
      ofac('1', 'Vessel', ['OCEAN STAR'], ids('imo', '9187629')),
      uk('SHP1', 'Vessel', ['OCEAN STAR I'], ids('imo', '9187629')),
    ],
    link: ['gb_fcdo:SHP1', 'us_ofac_sdn:1', 'identifier'],
  },
  {
    title: 'identifier: a passport of the same number and country with agreeing names',
    entities: [
      ofac('2', 'Person', ['KIM, Jung Jong'], ids('passport', '563210184', 'KP')),
      uk('DPR1', 'Person', ['KIM JUNG JONG'], ids('passport', '563210184', 'KP')),
    ],
    link: ['gb_fcdo:DPR1', 'us_ofac_sdn:2', 'identifier'],
  },
  {
    title: 'identifier guard: a passport of another issuing country does not link',
    entities: [
      ofac('2', 'Person', ['KIM, Jung Jong'], ids('passport', '563210184', 'KP')),
      uk('DPR1', 'Person', ['KIM JUNG JONG'], ids('passport', '563210184', 'CN')),
    ],
    link: null,
  },
  {
    title: 'identifier guard: a shared passport number with contradicting names does not link',
    entities: [
      ofac('2', 'Person', ['KIM, Jung Jong'], ids('passport', '563210184')),
      uk('IRN1', 'Person', ['Hossein Dehghan'], ids('passport', '563210184')),
    ],
    link: null,
  },
  {
    title: 'identifier guard: a person and a vessel never link, even on one number',
    entities: [
      ofac('3', 'Person', ['SEA EAGLE'], ids('registration', '12345678')),
      uk('SHP2', 'Vessel', ['SEA EAGLE'], ids('registration', '12345678')),
    ],
    link: null,
  },
  {
    title: 'identifier guard: a value two entries of one source hold is no one entity’s',
    entities: [
      ofac('4', 'Organization', ['ALPHA TRADING LLC'], ids('registration', '7700112233')),
      ofac('5', 'Organization', ['ALPHA TRADING LLC BRANCH'], ids('registration', '7700112233')),
      uk('RUS1', 'Organization', ['ALPHA TRADING LLC'], ids('registration', '7700112233')),
    ],
    link: null,
  },
  {
    title: 'ofac_ent_num: a CSL row from OFAC keeps OFAC’s entry number',
    entities: [
      ofac('9346', 'Organization', ['TANCHON COMMERCIAL BANK']),
      csl('9346', 'Organization', ['TANCHON COMMERCIAL BANK']),
    ],
    link: ['us_csl:9346', 'us_ofac_sdn:9346', 'ofac_ent_num'],
  },
  {
    title: 'ofac_ent_num guard: the same number with another name does not link',
    entities: [
      ofac('9346', 'Organization', ['TANCHON COMMERCIAL BANK']),
      csl('9346', 'Organization', ['GOLDEN STAR SHIPPING']),
    ],
    link: null,
  },
  {
    title: 'name_dob_nationality: the same person written surname-first, one full date, one nationality',
    entities: [
      un('111782', 'Person', ['THARWAT SALAH SHIHATA'], {
        birth_dates: ['1960-06-29'],
        nationalities: ['EG'],
      }),
      ofac('77', 'Person', ['SHIHATA, Tharwat Salah'], {
        birth_dates: ['1960-06-29'],
        nationalities: ['EG'],
      }),
    ],
    link: ['un_sc:111782', 'us_ofac_sdn:77', 'name_dob_nationality'],
  },
  {
    title: 'name_dob_nationality guard: the same name and date but no nationality in common',
    entities: [
      un('1', 'Person', ['AHMED ALI HASSAN'], { birth_dates: ['1970-01-01'], nationalities: ['EG'] }),
      ofac('1', 'Person', ['HASSAN, Ahmed Ali'], { birth_dates: ['1970-01-01'], nationalities: ['SY'] }),
    ],
    link: null,
  },
  {
    title: 'name_dob_nationality guard: a year of birth alone is not enough',
    entities: [
      un('1', 'Person', ['AHMED ALI HASSAN'], { birth_dates: ['1970'], nationalities: ['EG'] }),
      ofac('1', 'Person', ['HASSAN, Ahmed Ali'], { birth_dates: ['1970'], nationalities: ['EG'] }),
    ],
    link: null,
  },
  {
    title: 'name_dob_nationality guard: a different given name does not link',
    entities: [
      un('1', 'Person', ['AHMED ALI HASSAN'], { birth_dates: ['1970-01-01'], nationalities: ['EG'] }),
      ofac('1', 'Person', ['HASSAN, Mahmoud Ali'], { birth_dates: ['1970-01-01'], nationalities: ['EG'] }),
    ],
    link: null,
  },
  {
    title: 'name_dob_nationality guard: two equally good partners in one source link to neither',
    entities: [
      un('1', 'Person', ['AHMED ALI HASSAN'], { birth_dates: ['1970-01-01'], nationalities: ['EG'] }),
      ofac('1', 'Person', ['HASSAN, Ahmed Ali'], { birth_dates: ['1970-01-01'], nationalities: ['EG'] }),
      ofac('2', 'Person', ['HASSAN, Ahmed Ali'], { birth_dates: ['1970-01-01'], nationalities: ['EG'] }),
    ],
    link: null,
  },
  {
    title: 'name_country: the same organisation name and country',
    entities: [
      un('690752', 'Organization', ['TANCHON COMMERCIAL BANK', 'CHANGGWANG CREDIT BANK'], {
        countries: ['KP'],
      }),
      ofac('9346', 'Organization', ['TANCHON COMMERCIAL BANK', 'CHANGGWANG CREDIT BANK'], {
        countries: ['KP'],
      }),
    ],
    link: ['un_sc:690752', 'us_ofac_sdn:9346', 'name_country'],
  },
  {
    title: 'name_country guard: the same name in another country does not link',
    entities: [
      un('1', 'Organization', ['GREEN VALLEY TRADING'], { countries: ['IR'] }),
      ofac('1', 'Organization', ['GREEN VALLEY TRADING'], { countries: ['AE'] }),
    ],
    link: null,
  },
  {
    title: 'name_country guard: a one-word name is too common to link on',
    entities: [
      un('1', 'Organization', ['SAIPA'], { countries: ['IR'] }),
      ofac('1', 'Organization', ['SAIPA'], { countries: ['IR'] }),
    ],
    link: null,
  },
  {
    title: 'never two entries of the same source, whatever they share',
    entities: [
      ofac('1', 'Vessel', ['OCEAN STAR'], ids('imo', '9187629')),
      ofac('2', 'Vessel', ['OCEAN STAR'], ids('imo', '9187629')),
    ],
    link: null,
  },
];

describe('linking rules (one row per rule and guard)', () => {
  for (const row of ROWS) {
    it(row.title, () => {
      const c = consolidate(row.entities);
      if (row.link === null) {
        expect(c.links).toEqual([]);
        expect(c.entities_after).toBe(row.entities.length);
        return;
      }
      const [a, b, rule] = row.link;
      expect(c.links).toHaveLength(1);
      const l = c.links[0]!;
      expect([l.a, l.b, l.rule]).toEqual([a, b, rule]);
      expect(l.score).toBeGreaterThan(0.85);
      expect(l.score).toBeLessThanOrEqual(1);
      expect(l.reason.length).toBeGreaterThan(10);
      expect(c.entities_after).toBe(row.entities.length - 1);
    });
  }

  it('the rules are the API’s list of rules, in order', () => {
    expect(LINK_RULES.map((r) => r.rule)).toEqual([...API_LINK_RULES]);
  });

  it('schemas: people with people, organisations with organisations, a LegalEntity with either, craft alone', () => {
    expect(compatibleSchemas('Person', 'Person')).toBe(true);
    expect(compatibleSchemas('Company', 'Organization')).toBe(true);
    expect(compatibleSchemas('LegalEntity', 'Person')).toBe(true);
    expect(compatibleSchemas('LegalEntity', 'Company')).toBe(true);
    expect(compatibleSchemas('Person', 'Organization')).toBe(false);
    expect(compatibleSchemas('Vessel', 'LegalEntity')).toBe(false);
    expect(compatibleSchemas('Vessel', 'Aircraft')).toBe(false);
  });
});

const tanchon = (): Entity[] => [
  un('690752', 'Organization', ['TANCHON COMMERCIAL BANK', 'CHANGGWANG CREDIT BANK'], {
    countries: ['KP'],
    programs: ['DPRK'],
    ...ids('un_reference', 'KPE003'),
  }),
  uk('DPR0195', 'Organization', ['TANCHON COMMERCIAL BANK'], {
    countries: ['KP'],
    programs: ['DPR'],
    ...ids('un_reference', 'KPE003'),
  }),
  ofac('9346', 'Organization', ['TANCHON COMMERCIAL BANK', 'KOREA CHANGGWANG CREDIT BANK'], {
    countries: ['KP'],
    programs: ['NPWMD'],
  }),
  ofac('9347', 'Organization', ['KOREA RYONBONG GENERAL CORPORATION'], { countries: ['KP'] }),
];

describe('grouping', () => {
  it('groups the three entries of one bank and names the group by its UN entry', () => {
    const c = consolidate(tanchon());
    expect(c.entities_before).toBe(4);
    expect(c.entities_after).toBe(2);
    expect(c.clusterOf.get('us_ofac_sdn:9346')).toBe('un_sc:690752');
    expect(c.clusterOf.get('gb_fcdo:DPR0195')).toBe('un_sc:690752');
    expect(c.clusterOf.has('us_ofac_sdn:9347')).toBe(false);
    expect(
      consolidatedIdOf([
        { entity_id: 'us_csl:1', source: 'us_csl' },
        { entity_id: 'us_ofac_sdn:9', source: 'us_ofac_sdn' },
      ]),
    ).toBe('us_ofac_sdn:9');
  });

  it('refuses a link that would put two entries of one source in one entity', () => {
    // the UK entry shares an IMO number with one OFAC vessel and an MMSI with another: the weaker link goes
    const c = consolidate([
      ofac('1', 'Vessel', ['OCEAN STAR'], ids('imo', '9187629')),
      ofac('2', 'Vessel', ['OCEAN STAR II'], ids('mmsi', '273456789')),
      uk('SHP1', 'Vessel', ['OCEAN STAR'], {
        identifiers: [
          { type: 'imo', value: '9187629' },
          { type: 'mmsi', value: '273456789' },
        ],
      }),
    ]);
    expect(c.links.map((l) => [l.a, l.b, l.rule])).toEqual([['gb_fcdo:SHP1', 'us_ofac_sdn:1', 'identifier']]);
    expect(c.refused).toBe(1);
  });

  it('is deterministic: input order does not change the links', () => {
    const a = consolidate(tanchon());
    const b = consolidate([...tanchon()].reverse());
    expect(b.links).toEqual(a.links);
    expect([...b.clusterOf].sort()).toEqual([...a.clusterOf].sort());
  });

  it('stored links give the same groups (the rebuild path)', () => {
    const c = consolidate(tanchon());
    expect([...clustersFrom(tanchon(), c.links)].sort()).toEqual([...c.clusterOf].sort());
  });
});

describe('screen: one match per consolidated entity', () => {
  const entities = tanchon();
  const c = consolidate(entities);
  const s = openIndex(buildIndex(entities, 'v-test', c.clusterOf));
  const options = { datasets: ['sanctions'] as const, policy: DEFAULT_POLICY, limit: 10 };

  it('returns the bank once, with its three entries, their lists, programmes and best names', () => {
    const r = s.screen({ name: 'Tanchon Commercial Bank' }, { ...options, datasets: ['sanctions'] });
    const bank = r.matches.filter((m) => m.consolidated_id === 'un_sc:690752');
    expect(bank).toHaveLength(1);
    const m = bank[0]!;
    expect(m.sources.map((x) => x.entity_id).sort()).toEqual([
      'gb_fcdo:DPR0195',
      'un_sc:690752',
      'us_ofac_sdn:9346',
    ]);
    expect(m.sources.every((x) => x.matched_name === 'TANCHON COMMERCIAL BANK')).toBe(true);
    expect(m.programs.sort()).toEqual(['DPR', 'DPRK', 'NPWMD']);
    // the fields of old clients are those of the best entry
    expect(m.score).toBe(m.sources[0]!.score);
    expect(m.entity_id).toBe(m.sources[0]!.entity_id);
  });

  it('lists an entry of the entity even when its own name matches less well', () => {
    // only the OFAC entry carries "KOREA CHANGGWANG CREDIT BANK"; the UN and UK entries come with it
    const r = s.screen({ name: 'Korea Changgwang Credit Bank' }, { ...options, datasets: ['sanctions'] });
    const m = r.matches.find((x) => x.consolidated_id === 'un_sc:690752');
    expect(m?.entity_id).toBe('us_ofac_sdn:9346');
    expect(m?.sources.map((x) => x.source).sort()).toEqual(['gb_fcdo', 'un_sc', 'us_ofac_sdn']);
    expect(r.matches.filter((x) => x.consolidated_id === 'un_sc:690752')).toHaveLength(1);
  });

  it('an entry linked to no other is its own entity with one source', () => {
    const r = s.screen(
      { name: 'Korea Ryonbong General Corporation', type: 'company' },
      { ...options, datasets: ['sanctions'] },
    );
    const m = r.matches[0]!;
    expect(m.consolidated_id).toBe('us_ofac_sdn:9347');
    expect(m.sources).toHaveLength(1);
  });

  it('an entry outside the screen’s sources is not listed', () => {
    const policy = { ...DEFAULT_POLICY, exclude_sources: ['gb_fcdo'] };
    const r = s.screen({ name: 'Tanchon Commercial Bank' }, { ...options, datasets: ['sanctions'], policy });
    const m = r.matches.find((x) => x.consolidated_id === 'un_sc:690752');
    expect(m?.sources.map((x) => x.source).sort()).toEqual(['un_sc', 'us_ofac_sdn']);
  });
});

describe('monitor delta per consolidated entity (deltaEntries)', () => {
  const grouping = (groups: string[][]) => {
    const clusterOf = new Map<string, string>();
    const members = new Map<string, string[]>();
    for (const g of groups) {
      members.set(g[0]!, [...g].sort());
      for (const id of g) clusterOf.set(id, g[0]!);
    }
    return { clusterOf, members };
  };
  const ROWS: { title: string; changed: string[]; before: string[][]; after: string[][]; want: string[] }[] =
    [
      {
        title: 'a changed entry brings every other entry of its entity',
        changed: ['us_ofac_sdn:9346'],
        before: [['un_sc:1', 'gb_fcdo:A', 'us_ofac_sdn:9346']],
        after: [['un_sc:1', 'gb_fcdo:A', 'us_ofac_sdn:9346']],
        want: ['gb_fcdo:A', 'un_sc:1', 'us_ofac_sdn:9346'],
      },
      {
        title: 'an unchanged entry that joined an entity brings the entity',
        changed: [],
        before: [['un_sc:1', 'gb_fcdo:A']],
        after: [['un_sc:1', 'gb_fcdo:A', 'us_ofac_sdn:9346']],
        want: ['gb_fcdo:A', 'un_sc:1', 'us_ofac_sdn:9346'],
      },
      {
        title: 'an entry that left its entity is rescreened alone, and the rest of the entity too',
        changed: [],
        before: [['un_sc:1', 'gb_fcdo:A', 'us_ofac_sdn:9346']],
        after: [['un_sc:1', 'gb_fcdo:A']],
        want: ['gb_fcdo:A', 'un_sc:1', 'us_ofac_sdn:9346'],
      },
      {
        title: 'nothing changed: nothing to rescreen',
        changed: [],
        before: [['un_sc:1', 'gb_fcdo:A']],
        after: [['un_sc:1', 'gb_fcdo:A']],
        want: [],
      },
      {
        title: 'a changed entry of no entity is rescreened alone',
        changed: ['us_ofac_sdn:7'],
        before: [['un_sc:1', 'gb_fcdo:A']],
        after: [['un_sc:1', 'gb_fcdo:A']],
        want: ['us_ofac_sdn:7'],
      },
    ];
  for (const row of ROWS) {
    it(row.title, () => {
      const got = deltaEntries(new Set(row.changed), grouping(row.before), grouping(row.after));
      expect([...got].sort()).toEqual(row.want);
    });
  }
});
