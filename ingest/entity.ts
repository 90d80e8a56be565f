// The canonical entity model every list format is parsed into. The matcher indexes these;
// the server stores them per dataset version. Keep it JSON-serialisable.
import { AML_DATASET_VALUES } from '../schemas/aml-datasets.js';

/** The AML datasets an entity can belong to: the API's list (schemas/common.ts), in the index's bit order. */
export const AML_DATASETS = AML_DATASET_VALUES;
export type AmlDataset = (typeof AML_DATASETS)[number];

export const ENTITY_SCHEMAS = [
  'Person',
  'Organization',
  'Company',
  'LegalEntity',
  'Vessel',
  'Aircraft',
] as const;
export type EntitySchema = (typeof ENTITY_SCHEMAS)[number];

/** primary: the list's main name; alias: a.k.a. of good quality; weak: low-quality a.k.a. (OFAC single-quoted,
 * UN QUALITY=Low, UK alias_strength weak); former: f.k.a. / previous names. */
export type NameKind = 'primary' | 'alias' | 'weak' | 'former';

export interface EntityName {
  value: string;
  kind: NameKind;
  /** ISO 15924 script code of the name as written (Latn, Cyrl, Arab, Hani, Hebr, Grek, Kana, …). */
  script?: string;
}

export interface EntityIdentifier {
  /** passport, national_id, tax_id, imo, mmsi, call_sign, lei, registration, swift_bic, crypto_wallet, other */
  type: string;
  /** normalised: upper case, no spaces or punctuation */
  value: string;
  country?: string;
}

export interface Entity {
  /** stable across versions of the same source: `${source}:${source_id}` */
  entity_id: string;
  /** e.g. us_ofac_sdn, us_ofac_cons, un_sc, us_csl, gb_fcdo, us_bis_dpl, opensanctions, us_congress */
  source: string;
  /** the list's own id: OFAC ent_num, UN DATAID, UK unique_id, FtM id … */
  source_id: string;
  schema: EntitySchema;
  names: EntityName[];
  /** ISO dates, partial kept partial: 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' */
  birth_dates: string[];
  birth_places: string[];
  /** ISO 3166-1 alpha-2, upper case: addresses, registration, vessel flag */
  countries: string[];
  /** ISO 3166-1 alpha-2, upper case: nationality and citizenship */
  nationalities: string[];
  identifiers: EntityIdentifier[];
  programs: string[];
  datasets: AmlDataset[];
  gender?: 'male' | 'female';
  /** free text the list gives (titles, remarks); shown to operators, not matched */
  notes?: string;
}

/** A bad row or field met while parsing: reported, counted, skipped; it never aborts the source. */
export interface IngestIssue {
  file: string;
  line: number;
  field?: string;
  message: string;
}

export type IssueSink = (issue: IngestIssue) => void;
