// Public contract of the matching engine. The server, the CLI and the benchmarks use only these types
// and the functions exported from matcher/index.ts.
import type { AmlDataset, EntitySchema, NameKind } from '../ingest/entity.js';

export type SubjectType = 'person' | 'company' | 'organization' | 'vessel' | 'aircraft';

/** One subject to screen (the spec's "monitored or batched subject"; the CLI's input line). Only name is required. */
export interface ScreenSubject {
  ref?: string;
  name: string;
  type?: SubjectType;
  aliases?: string[];
  /** 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' */
  date_of_birth?: string;
  /** ISO 3166-1 alpha-2 */
  nationality?: string;
  country?: string;
  /** identifier type → value, e.g. { passport: "X123" } */
  identifiers?: Record<string, string>;
  imo_number?: string;
  mmsi?: string;
  registration_number?: string;
}

/** The spec's AmlMatchPolicy, with every field resolved (defaults in matcher/policy.ts). */
export interface MatchPolicy {
  algorithm: string;
  review_threshold: number;
  fail_threshold: number;
  /** dataset → review threshold for matches in that dataset */
  dataset_thresholds: Record<string, number>;
  /** use case → review threshold */
  use_case_thresholds: Record<string, number>;
  /** feature name → weight multiplier */
  feature_weights: Record<string, number>;
  include_sources: string[];
  exclude_sources: string[];
  include_weak_aliases: boolean;
}

export interface ScreenOptions {
  datasets: readonly AmlDataset[];
  policy: MatchPolicy;
  use_case?: string;
  /** at most this many matches (default 10) */
  limit?: number;
  /** report matches at or above this score (default: the effective review threshold) */
  min_score?: number;
}

export interface MatchEvidence {
  /** the subject name (or alias) that produced the best score, as given */
  query_name: string;
  /** the list name it matched, as the list writes it */
  matched_name: string;
  matched_name_kind: NameKind;
  /** per-feature scores in [0,1] (name, dob, nationality, identifier, …) and penalties as negative numbers */
  features: Record<string, number>;
  /** the threshold this match was judged against (after dataset/use-case overrides) */
  threshold: number;
  dataset_version: string;
}

/** What a match and each of its list entries say of a listed entry. */
interface ListedEntry {
  entity_id: string;
  source: string;
  source_id: string;
  schema: EntitySchema;
  /** the entry's (for a match: the entity's) primary name */
  name: string;
  /** 0..1 against the subject; an entry of a consolidated entity may be below the threshold: it is listed because it
   * is the same entity as the entry that matched */
  score: number;
  datasets: AmlDataset[];
  programs: string[];
}

/** One list entry of a consolidated entity, as it matched the subject. */
export interface MatchSource extends ListedEntry {
  /** the entry's name that matched the subject best, as the list writes it */
  matched_name: string;
  matched_name_kind: NameKind;
}

/** The match of one entity. A consolidated entity (entries of several lists linked at dataset build) is one match:
 * `entity_id`, `source`, `source_id`, `name`, `score` and `evidence` are those of its best-scoring entry, `datasets`
 * and `programs` the union over its entries, and `sources` lists every entry in scope. */
export interface Match extends ListedEntry {
  evidence: MatchEvidence;
  /** the consolidated entity's id (the entity_id of its first entry: UN, then OFAC SDN, UK, …); entity_id for an entry
   * linked to no other */
  consolidated_id: string;
  /** every entry of the entity in the screen's scope, best score first (one for an entry linked to no other) */
  sources: MatchSource[];
}

export interface ScreenResult {
  matches: Match[];
  dataset_version: string;
  /** number of candidates scored (for metrics and explanation) */
  candidates: number;
  /** time spent screening in the matcher thread (set by the worker; excludes queueing) */
  screen_ms?: number;
}

/** Plain data that can be posted to worker threads: every large part lives in SharedArrayBuffers. */
export interface IndexData {
  version: string;
  /** opaque to callers; only matcher/ reads it */
  buffers: Record<string, SharedArrayBuffer>;
  meta: Record<string, number | string>;
}

export interface IndexStats {
  entities: number;
  names: number;
  bytes: number;
  by_schema: Record<string, number>;
  by_dataset: Record<string, number>;
  build_ms: number;
}
