import type {
  Match,
  MatchPolicy,
  ScreenOptions,
  ScreenResult,
  ScreenSubject,
} from '../../../matcher/types.js';
import { AML_DATASET_VALUES, type AmlDataset } from '../../../schemas/common.js';
import type {
  AlertDraft,
  ApplicantData,
  CheckOutcome,
  CheckTypeDef,
  ReasonRule,
  Screener,
} from '../check-type.js';

/** The evidence of an aml_screen check, whoever ran it (flow, batch, monitor). */
export interface AmlCheckEvidence {
  /** the (first) subject as screened; the dashboard shows it next to the list entity */
  subject: ScreenSubject;
  /** every subject screened (a monitor may watch several names of one customer) */
  subjects: ScreenSubject[];
  algorithm: string;
  review_threshold: number;
  fail_threshold: number;
  /** the best match per entity over all subjects, strongest first */
  matches: Match[];
  candidates: number;
}

const review: ReasonRule['decide'] = () => 'MANUAL_REVIEW';

const DATASET_CODES: Record<AmlDataset, string> = {
  sanctions: 'A sanctions list entry matched at or above the review threshold',
  pep: 'A politically exposed person matched',
  pep_rca: 'A relative or close associate of a PEP matched',
  wanted: 'A wanted-persons entry matched',
  debarment: 'A debarment entry matched',
  soe: 'A state-owned enterprise matched',
  crypto_wallets: 'A listed crypto wallet owner matched',
};

/** The name to screen: a business's name, else the person's legal name parts. */
export function subjectName(a: ApplicantData): string | undefined {
  if (a.entity_type === 'business') return a.business_name?.trim() || undefined;
  const parts = [a.legal_name_first, a.legal_name_middle, a.legal_name_last].filter(
    (p): p is string => !!p?.trim(),
  );
  return parts.length ? parts.join(' ') : a.business_name?.trim() || undefined;
}

function applicantSubject(a: ApplicantData, name: string): ScreenSubject {
  return {
    name,
    type: a.entity_type === 'business' ? 'company' : 'person',
    ...(a.dob ? { date_of_birth: a.dob } : {}),
    ...(a.nationality ? { nationality: a.nationality.toUpperCase() } : {}),
    ...(a.address_country ? { country: a.address_country.toUpperCase() } : {}),
  };
}

/** Merges per-subject results: one match per entity (a consolidated entity counts once), the highest score,
 * strongest first. */
export function mergeMatches(results: Match[][]): Match[] {
  const best = new Map<string, Match>();
  for (const r of results) {
    for (const m of r) {
      const key = m.consolidated_id ?? m.entity_id;
      const prev = best.get(key);
      if (!prev || m.score > prev.score) best.set(key, m);
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}

export interface AmlScreenRequest {
  subjects: ScreenSubject[];
  datasets: AmlDataset[];
  policy: MatchPolicy;
  use_case?: string | null | undefined;
}

/**
 * Screens the subjects and turns their matches into an aml_screen outcome (amlOutcome).
 */
export async function screenAml(screen: Screener, req: AmlScreenRequest): Promise<CheckOutcome> {
  const started = performance.now();
  const options = amlScreenOptions(req);
  const results: ScreenResult[] = await Promise.all(req.subjects.map((s) => screen(s, options)));
  return amlOutcome(req, results, performance.now() - started);
}

/** The matcher options of an aml_screen request. */
export function amlScreenOptions(req: Omit<AmlScreenRequest, 'subjects'>): ScreenOptions {
  return {
    datasets: req.datasets,
    policy: req.policy,
    ...(req.use_case ? { use_case: req.use_case } : {}),
    limit: 10,
  };
}

/**
 * The aml_screen outcome of the subjects' screen results (however they were screened: one by one or in bulk): a
 * match at or above its (dataset- or use-case-adjusted) threshold is a hit, raises `aml_<dataset>_match` for each
 * selected dataset it is listed in (and `aml_strong_match` at or above the fail threshold), and drafts one alert
 * per matched entity.
 */
export function amlOutcome(req: AmlScreenRequest, results: ScreenResult[], elapsed_ms: number): CheckOutcome {
  const { policy, datasets } = req;
  const versions = new Set(results.map((r) => r.dataset_version));
  // a promotion between two subjects' screens would mix versions in one check: the caller screens again
  if (versions.size > 1) throw new Error('dataset version changed during the screen');
  const version = results[0]?.dataset_version ?? '';
  const matches = mergeMatches(results.map((r) => r.matches));
  const hits = matches.filter((m) => m.score >= m.evidence.threshold);
  const codes = new Set<string>();
  for (const m of hits)
    for (const d of m.datasets) if ((datasets as string[]).includes(d)) codes.add(`aml_${d}_match`);
  if (hits.some((m) => m.score >= policy.fail_threshold)) codes.add('aml_strong_match');
  const evidence: AmlCheckEvidence = {
    subject: req.subjects[0] as ScreenSubject,
    subjects: req.subjects,
    algorithm: policy.algorithm,
    review_threshold: policy.review_threshold,
    fail_threshold: policy.fail_threshold,
    matches,
    candidates: results.reduce((n, r) => n + r.candidates, 0),
  };
  return {
    check_type: 'aml_screen',
    status: 'completed',
    result: hits.length ? 'hit' : 'clear',
    signals: [...codes].sort(),
    latency_ms: Math.round(elapsed_ms * 1000) / 1000,
    dataset_versions: [version],
    datasets,
    evidence: { ...evidence },
    error: null,
    alerts: hits.map((m) => alertDraft(m, policy)),
  };
}

/** One alert per entity: a consolidated entity's alert is about the entity (its consolidated id) and names every
 * entry of it that the screen's scope includes. */
function alertDraft(m: Match, policy: MatchPolicy): AlertDraft {
  const sources = m.sources ?? [];
  return {
    source_entity_id: m.consolidated_id ?? m.entity_id,
    evidence: {
      name: m.name,
      source: m.source,
      source_id: m.source_id,
      score: m.score,
      threshold: m.evidence.threshold,
      strong: m.score >= policy.fail_threshold,
      datasets: m.datasets,
      programs: m.programs,
      features: m.evidence.features,
      matched_name: m.evidence.matched_name,
      dataset_version: m.evidence.dataset_version,
      ...(sources.length > 1
        ? {
            consolidated_id: m.consolidated_id,
            sources: sources.map((x) => ({
              entity_id: x.entity_id,
              source: x.source,
              source_id: x.source_id,
              name: x.name,
              score: x.score,
              datasets: x.datasets,
              programs: x.programs,
              matched_name: x.matched_name,
            })),
          }
        : {}),
    },
  };
}

export const amlScreen: CheckTypeDef = {
  type: 'aml_screen',
  needs_upload: false,
  reason_codes: {
    ...Object.fromEntries(
      AML_DATASET_VALUES.map((d) => [`aml_${d}_match`, { description: DATASET_CODES[d], decide: review }]),
    ),
    aml_strong_match: {
      description: 'A match scored at or above the fail threshold (never auto-rejected: a human confirms)',
      decide: review,
    },
  },
  async run(deps, input) {
    const name = subjectName(input.applicant);
    if (!name) {
      return {
        check_type: 'aml_screen',
        status: 'failed',
        result: 'error',
        signals: ['check_error'],
        latency_ms: 0,
        dataset_versions: [],
        datasets: input.datasets,
        evidence: {},
        error: 'the applicant has no name to screen',
        alerts: [],
      };
    }
    return screenAml(deps.screen, {
      subjects: [applicantSubject(input.applicant, name)],
      datasets: input.datasets,
      policy: input.policy.aml_match_policy,
      use_case: input.use_case,
    });
  },
};
