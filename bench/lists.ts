// The eight real lists in ../shared/data (see its README): one table for every bench that loads them.

/** Each list's ingest format and its path below ../shared/data. */
export const REAL_LISTS: readonly { format: string; path: string }[] = [
  { format: 'ofac_sdn_csv', path: 'ofac_sdn' },
  { format: 'ofac_cons_csv', path: 'ofac_cons' },
  { format: 'un_xml', path: 'un_sc/UN_consolidated.xml' },
  { format: 'ftm_json', path: 'opensanctions/yente_fixtures' },
  { format: 'senzing_json', path: 'opensanctions/watchman/us_congress_senzing.json' },
  { format: 'us_csl_csv', path: 'us_csl/consolidated.csv.gz' },
  { format: 'uk_csv', path: 'uk_sanctions_list_derived' },
  { format: 'bis_dpl_tsv', path: 'us_bis_dpl/dpl.txt' },
];
