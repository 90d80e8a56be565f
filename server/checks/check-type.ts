import type { Redis } from 'ioredis';
import type { ScreenOptions, ScreenResult, ScreenSubject } from '../../matcher/types.js';
import type { CheckType } from '../../schemas/checks.js';
import type { AmlDataset } from '../../schemas/common.js';
import type { FlowDecision } from '../../schemas/flows.js';
import type { FatfState } from '../fatf/fatf-store.js';
import type { ClientMetadata } from '../flows/client-metadata.js';
import type { IdentityInputs } from '../identity/identity-inputs.js';
import type { CheckPolicy } from '../policy/check-policy.js';

/**
 * What a check type is: one file in server/checks/types/ exporting a CheckTypeDef, and one line in
 * server/checks/registry.ts. The recorder (server/checks/recorder.ts) does everything else the same way for every
 * type: decide by the tenant's policy (each reason code's rule is declared here, next to the code), record the
 * check, raise its alerts with the false-positive memory, write its events.
 */
export interface CheckTypeDef {
  type: CheckType;
  /** waits for uploads (documents, selfies): a template requiring it is not checks-only, and a flow needing it goes
   * to AWAITING_INPUT until the inputs arrive */
  needs_upload: boolean;
  /** every reason code this type can raise, with its rule under the tenant's policy */
  reason_codes: Readonly<Record<string, ReasonRule>>;
  /** inputs → outcome. Infrastructure failures (matcher overloaded, Redis down) throw: the caller refunds (sync) or
   * retries the job (async); a subject the type cannot check gives a 'failed' outcome with the check_error code. */
  run(deps: CheckRunDeps, input: CheckInput): Promise<CheckOutcome>;
}

export interface ReasonRule {
  description: string;
  /** the decision this code asks for under `policy`; null = the policy ignores it */
  decide(policy: CheckPolicy): FlowDecision | null;
}

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
  /** the screening's use case (a flow's: onboarding): the policy's use_case_thresholds apply to it */
  use_case: string;
  /** what the upload check types (document, selfie) check: given by the flow job once every input is read */
  uploads?: UploadInputs;
}

/** A flow's read uploads and what the template and the applicant allow (server/identity/). */
export interface UploadInputs {
  identity: IdentityInputs;
  template: {
    allowed_document_types: string[];
    allowed_issuing_countries: string[];
    passport_nfc_behavior?: string;
  };
  /** the applicant's consent.biometric */
  biometric_consent: boolean;
}

/** Screens one subject: the matcher pool (with metrics), or an in-process index (promotion delta rescreens). */
export type Screener = (subject: ScreenSubject, options: ScreenOptions) => Promise<ScreenResult>;

export interface CheckRunDeps {
  screen: Screener;
  redis: Redis;
  fatf: () => FatfState;
}

/** The evidence of one alert: one entity matched for one subject. The same shape for every check that raises
 * alerts (flows, batches, monitors); the dashboard reads `features`. */
export interface AlertEvidence {
  name: string;
  source: string;
  source_id: string;
  score: number;
  threshold: number;
  /** scored at or above the policy's fail threshold */
  strong: boolean;
  datasets: string[];
  programs: string[];
  features: Record<string, number>;
  matched_name: string;
  dataset_version: string;
  /** md5 of the entity's list data in that version (the false-positive memory), set when the alert is raised */
  entity_fingerprint?: string | null;
  /** set when a later check refreshed the evidence (the entity's list data changed) */
  refreshed_by_check_id?: string;
  /** the consolidated entity (entries of several lists linked at dataset build): its id, the alert's
   * source_entity_id; absent on alerts raised before consolidation */
  consolidated_id?: string;
  /** every list entry of the entity in the screen's scope, best score first; name, source, source_id and score
   * above are those of the first */
  sources?: AlertSource[];
}

/** One list entry of an alert's entity. */
export interface AlertSource {
  entity_id: string;
  source: string;
  source_id: string;
  name: string;
  score: number;
  datasets: string[];
  programs: string[];
  matched_name: string;
}

export interface AlertDraft {
  source_entity_id: string;
  evidence: AlertEvidence;
}

export interface CheckOutcome {
  check_type: CheckType;
  status: 'completed' | 'failed';
  result: 'clear' | 'hit' | 'error' | 'not_applicable';
  /** reason codes before policy (the rules decide which count) */
  signals: string[];
  latency_ms: number;
  dataset_versions: string[];
  datasets: AmlDataset[];
  evidence: Record<string, unknown>;
  error: string | null;
  alerts: AlertDraft[];
}

export const elapsedMs = (started: number) => Math.round((performance.now() - started) * 1000) / 1000;

/** An outcome with nothing to say (no input for this type). */
export function notApplicable(
  type: CheckType,
  started: number,
  evidence: Record<string, unknown>,
): CheckOutcome {
  return {
    check_type: type,
    status: 'completed',
    result: 'not_applicable',
    signals: [],
    latency_ms: elapsedMs(started),
    dataset_versions: [],
    datasets: [],
    evidence,
    error: null,
    alerts: [],
  };
}
