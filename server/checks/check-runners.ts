import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ScreenSubject } from '../../matcher/types.js';
import type { CheckType } from '../../schemas/checks.js';
import type { AmlDataset } from '../../schemas/common.js';
import type { FatfState } from '../fatf/fatf-store.js';
import type { ClientMetadata, IpRiskSignal } from '../flows/client-metadata.js';
import type { Metrics } from '../metrics.js';
import type { CheckPolicy } from '../policy/check-policy.js';
import { runAmlScreen } from '../screening/aml-check.js';
import type { MatcherPool } from '../screening/matcher-pool.js';

/** The applicant as checks see it (from FlowCreateIn at creation, from the applicants row in a worker). */
export interface ApplicantData {
  external_id?: string | null;
  entity_type?: 'individual' | 'business' | null;
  legal_name_first?: string | null;
  legal_name_middle?: string | null;
  legal_name_last?: string | null;
  business_name?: string | null;
  dob?: string | null;
  nationality?: string | null;
  address_country?: string | null;
}

export interface CheckInput {
  tenant_id: string;
  flow_id: string;
  applicant: ApplicantData;
  client_metadata: Partial<ClientMetadata>;
  device?: { visitor_id: string; confidence?: number | undefined } | undefined;
  mode: 'sync' | 'async';
  datasets: AmlDataset[];
  policy: CheckPolicy;
}

export interface CheckRunDeps {
  pool: MatcherPool;
  metrics: Metrics;
  redis: Redis;
  fatf: () => FatfState;
}

export interface AlertDraft {
  source_entity_id: string;
  evidence: Record<string, unknown>;
}

export interface CheckOutcome {
  check_type: CheckType;
  status: 'completed' | 'failed';
  result: 'clear' | 'hit' | 'error' | 'not_applicable';
  /** reason codes before policy (rules.ts decides which count) */
  signals: string[];
  latency_ms: number;
  dataset_versions: string[];
  datasets: AmlDataset[];
  evidence: Record<string, unknown>;
  error: string | null;
  alerts: AlertDraft[];
}

export function subjectName(a: ApplicantData): string | undefined {
  if (a.entity_type === 'business') return a.business_name?.trim() || undefined;
  const parts = [a.legal_name_first, a.legal_name_middle, a.legal_name_last].filter(
    (p): p is string => !!p?.trim(),
  );
  return parts.length ? parts.join(' ') : a.business_name?.trim() || undefined;
}

function subjectOf(a: ApplicantData, name: string): ScreenSubject {
  return {
    name,
    type: a.entity_type === 'business' ? 'company' : 'person',
    ...(a.dob ? { date_of_birth: a.dob } : {}),
    ...(a.nationality ? { nationality: a.nationality.toUpperCase() } : {}),
    ...(a.address_country ? { country: a.address_country.toUpperCase() } : {}),
  };
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 1000) / 1000;

async function amlScreen(deps: CheckRunDeps, input: CheckInput): Promise<CheckOutcome> {
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
  const policy = input.policy.aml_match_policy;
  const aml = await runAmlScreen(
    deps.pool,
    deps.metrics,
    subjectOf(input.applicant, name),
    input.datasets,
    policy,
  );
  const hits = aml.evidence.matches.filter((m) => m.score >= m.evidence.threshold);
  const signals = [...aml.reason_codes];
  if (hits.some((m) => m.score >= policy.fail_threshold)) signals.push('aml_strong_match');
  return {
    check_type: 'aml_screen',
    status: 'completed',
    result: aml.result,
    signals,
    latency_ms: aml.latency_ms,
    dataset_versions: [aml.dataset_version],
    datasets: input.datasets,
    evidence: { ...aml.evidence, fail_threshold: policy.fail_threshold },
    error: null,
    alerts: hits.map((m) => ({
      source_entity_id: m.entity_id,
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
      },
    })),
  };
}

function countryRisk(deps: CheckRunDeps, input: CheckInput): CheckOutcome {
  const started = performance.now();
  const fatf = deps.fatf();
  const sources: [string, string | null | undefined][] = [
    ['address', input.applicant.address_country],
    ['nationality', input.applicant.nationality],
    ['ip', input.client_metadata.geolocation?.country],
  ];
  const signals = new Set<string>();
  const countries = sources
    .filter((s): s is [string, string] => !!s[1])
    .map(([source, raw]) => {
      const country = raw.toUpperCase();
      const listing = fatf.listings[country] ?? null;
      const blocked = input.policy.blocked_countries.includes(country);
      if (listing === 'black') signals.add('fatf_black');
      if (listing === 'grey') signals.add('fatf_grey');
      if (blocked) signals.add('blocked_country');
      return { source, country, fatf: listing, blocked };
    });
  return {
    check_type: 'country_risk',
    status: 'completed',
    result: countries.length === 0 ? 'not_applicable' : signals.size ? 'hit' : 'clear',
    signals: [...signals],
    latency_ms: elapsed(started),
    dataset_versions: [`fatf:${fatf.version}`],
    datasets: [],
    evidence: {
      countries,
      fatf_version: fatf.version,
      fatf_black_handling: input.policy.fatf_black_handling,
      fatf_grey_handling: input.policy.fatf_grey_handling,
    },
    error: null,
    alerts: [],
  };
}

const IP_SIGNALS: Record<IpRiskSignal, string> = {
  vpn: 'vpn_detected',
  proxy: 'proxy_detected',
  tor: 'tor_detected',
  hosting: 'hosting_ip',
};

function ipRisk(input: CheckInput): CheckOutcome {
  const started = performance.now();
  const risk = input.client_metadata.ip_risk ?? null;
  const signals = (risk ?? []).map((r) => IP_SIGNALS[r]);
  return {
    check_type: 'ip_risk',
    status: 'completed',
    result: risk === null ? 'not_applicable' : signals.length ? 'hit' : 'clear',
    signals,
    latency_ms: elapsed(started),
    dataset_versions: [],
    datasets: [],
    evidence: {
      ip: input.client_metadata.ip ?? null,
      signal: risk === null ? 'unavailable' : risk,
      source: 'trusted-header',
      vpn_policy: input.policy.vpn_policy,
    },
    error: null,
    alerts: [],
  };
}

/** Velocity window for device_fingerprint (docs/decisions.md). */
export const DEVICE_WINDOW_MS = 24 * 3600_000;

async function deviceFingerprint(deps: CheckRunDeps, input: CheckInput): Promise<CheckOutcome> {
  const started = performance.now();
  const threshold = input.policy.device_velocity_threshold;
  if (input.mode !== 'sync' || !input.device) {
    return {
      check_type: 'device_fingerprint',
      status: 'completed',
      result: 'not_applicable',
      signals: [],
      latency_ms: elapsed(started),
      dataset_versions: [],
      datasets: [],
      evidence: {
        reason: input.mode !== 'sync' ? 'device evidence is used only in sync mode' : 'no device given',
      },
      error: null,
      alerts: [],
    };
  }
  // sliding window log: one member per flow, scored by time; entries older than the window are dropped
  const visitor = createHash('sha256').update(input.device.visitor_id).digest('hex').slice(0, 32);
  const key = `vs:device:${input.tenant_id}:${visitor}`;
  const now = Date.now();
  const res = await deps.redis
    .multi()
    .zremrangebyscore(key, '-inf', now - DEVICE_WINDOW_MS)
    .zadd(key, now, input.flow_id)
    .zcard(key)
    .pexpire(key, DEVICE_WINDOW_MS)
    .exec();
  const count = Number(res?.[2]?.[1] ?? 0);
  const hit = count > threshold;
  return {
    check_type: 'device_fingerprint',
    status: 'completed',
    result: hit ? 'hit' : 'clear',
    signals: hit ? ['device_velocity'] : [],
    latency_ms: elapsed(started),
    dataset_versions: [],
    datasets: [],
    evidence: {
      visitor_id_hash: visitor,
      confidence: input.device.confidence ?? null,
      flows_in_window: count,
      window_seconds: DEVICE_WINDOW_MS / 1000,
      threshold,
    },
    error: null,
    alerts: [],
  };
}

/** Runs one checks-only check. Infrastructure errors (matcher overloaded, Redis down) throw: the caller refunds
 * (sync) or retries the job (async). */
export async function runCheck(deps: CheckRunDeps, type: string, input: CheckInput): Promise<CheckOutcome> {
  switch (type) {
    case 'aml_screen':
      return amlScreen(deps, input);
    case 'country_risk':
      return countryRisk(deps, input);
    case 'ip_risk':
      return ipRisk(input);
    case 'device_fingerprint':
      return deviceFingerprint(deps, input);
    default:
      throw new Error(`${type} is not a checks-only check`);
  }
}
