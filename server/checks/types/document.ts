import { reportedReading } from '../../../identity/document/report.js';
import { compare } from '../../../matcher/index.js';
import type { IdentityInputs, ReadUpload } from '../../identity/identity-inputs.js';
import type { ApplicantData, CheckOutcome, CheckTypeDef } from '../check-type.js';
import { subjectName } from './aml-screen.js';

/** Name consistency between the applicant and the MRZ: the matcher's compare (what `bin/veriscreen compare` runs:
 * transliteration, token order, diacritics) at the matcher's default review threshold. */
export const NAME_MATCH_THRESHOLD = 0.85;

/** One sub-check of the document check, as evidence: `passed` null = could not be evaluated. */
export interface SubCheck {
  name: string;
  passed: boolean | null;
  value: unknown;
  expected?: unknown;
  reason_code?: string;
}

/** The document check (docs/decisions.md, "Identity verification"): over the flow's read identity document. */
export const documentType: CheckTypeDef = {
  type: 'document',
  needs_upload: true,
  reason_codes: {
    document_unreadable: {
      description: 'No machine-readable zone could be read (or the file could not be decoded)',
      decide: () => 'MANUAL_REVIEW',
    },
    document_check_digits_invalid: {
      description: 'An MRZ check digit (composite included) does not match: a misreading or a forgery',
      decide: () => 'MANUAL_REVIEW',
    },
    document_reading_unconfirmed: {
      description:
        'The MRZ reading failed the strict check or a second reading disagreed: a human confirms it',
      decide: () => 'MANUAL_REVIEW',
    },
    document_expired: {
      description: 'The document expired before today (raised from an accepted reading only)',
      decide: () => 'REJECTED',
    },
    document_type_not_allowed: {
      description: "The document's type (from the MRZ) is not in the template's allowed_document_types",
      decide: () => 'REJECTED',
    },
    document_country_not_allowed: {
      description: "The issuing state is not in the template's allowed_issuing_countries",
      decide: () => 'REJECTED',
    },
    document_quality_low: {
      description: 'The image is too small, blurred or has glare',
      decide: () => 'MANUAL_REVIEW',
    },
    document_data_mismatch: {
      description: "The name or date of birth on the document differs from the applicant's",
      decide: () => 'MANUAL_REVIEW',
    },
    document_no_face: {
      description: 'No face (portrait) was found on the document',
      decide: () => 'MANUAL_REVIEW',
    },
  },
  async run(_deps, input) {
    if (!input.uploads) return inputsMissing('document');
    return documentCheck(input.uploads.identity, input.applicant, input.uploads.template);
  },
};

/** Run without the flow's uploads (cannot happen through a flow job): a failed check that goes to review. */
export function inputsMissing(type: 'document' | 'selfie'): CheckOutcome {
  return {
    check_type: type,
    status: 'failed',
    result: 'error',
    signals: ['check_error'],
    latency_ms: 0,
    dataset_versions: [],
    datasets: [],
    evidence: {},
    error: `the ${type} check needs the flow's read uploads`,
    alerts: [],
  };
}

export interface DocumentCheckTemplate {
  allowed_document_types: string[];
  allowed_issuing_countries: string[];
}

/** The DocumentType an MRZ document code (ICAO 9303: P…, I…, A…, C…, V…) stands for. */
export function mrzDocumentType(code: string): string {
  const c = code.replace(/</g, '').toUpperCase();
  if (c.startsWith('P')) return 'passport';
  if (c.startsWith('V')) return 'visa';
  if (c === 'IR' || c === 'AR' || c.startsWith('R')) return 'residence_permit';
  if (c.startsWith('I') || c.startsWith('A') || c.startsWith('C')) return 'id_card';
  return 'unknown';
}

const IDENTITY_TYPES = new Set(['passport', 'id_card', 'residence_permit']);

function typeAllowed(type: string, allowed: string[]): boolean {
  if (!allowed.length) return type !== 'visa' && type !== 'unknown';
  return allowed.includes(type) || (allowed.includes('id_document') && IDENTITY_TYPES.has(type));
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/** The MRZ name as one string: given names then surname. */
export const mrzName = (m: { given_names: string; surname: string }) =>
  [m.given_names, m.surname]
    .map((p) => p.trim())
    .filter(Boolean)
    .join(' ');

/**
 * The document check over the flow's read identity document. Every sub-check is recorded with its value; reason
 * codes (declared above; server/checks/rules.ts) are raised as follows: no MRZ / undecodable file → document_unreadable; a check digit
 * wrong → document_check_digits_invalid; digits right but the reading not accepted (strict check, second signal)
 * → document_reading_unconfirmed. The codes that reject (expired, type or issuing state not allowed) are raised
 * only from an accepted reading; an unaccepted reading always goes to review and never to an automatic approval.
 */
export function documentCheck(
  inputs: IdentityInputs,
  applicant: ApplicantData,
  template: DocumentCheckTemplate,
  now = new Date(),
): CheckOutcome {
  const started = performance.now();
  const doc = inputs.document;
  const signals = new Set<string>();
  const subs: SubCheck[] = [];
  const sub = (s: SubCheck, raise: boolean) => {
    subs.push(s);
    if (s.passed === false && s.reason_code && raise) signals.add(s.reason_code);
  };
  if (!doc) {
    return outcome(['document_unreadable'], [], undefined, started, 'no read identity document');
  }
  const r = doc.reading;
  const m = r?.mrz ?? null;
  sub(
    {
      name: 'mrz_found',
      passed: !!m,
      value: m?.format ?? null,
      reason_code: 'document_unreadable',
      ...(doc.error || r?.error ? { error: doc.error ?? r?.error } : {}),
    } as SubCheck,
    true,
  );
  const accepted = !!(m && r?.accepted);
  if (m && r) {
    sub(
      {
        name: 'check_digits_valid',
        passed: r.check_digits_valid,
        value: r.check_digits_valid,
        reason_code: 'document_check_digits_invalid',
      },
      true,
    );
    sub(
      {
        name: 'reading_accepted',
        passed: r.accepted,
        value: r.reasons,
        reason_code: 'document_reading_unconfirmed',
      },
      r.check_digits_valid,
    );
    sub(
      {
        name: 'not_expired',
        passed: m.expiry_date === null ? null : m.expiry_date >= today(now),
        value: m.expiry_date,
        expected: `>= ${today(now)}`,
        reason_code: 'document_expired',
      },
      accepted,
    );
    const type = mrzDocumentType(m.document_type);
    sub(
      {
        name: 'document_type_allowed',
        passed: typeAllowed(type, template.allowed_document_types),
        value: { mrz_code: m.document_type, type, declared: doc.doc_type },
        expected: template.allowed_document_types,
        reason_code: 'document_type_not_allowed',
      },
      accepted,
    );
    sub(
      {
        name: 'issuing_country_allowed',
        passed:
          !template.allowed_issuing_countries.length ||
          template.allowed_issuing_countries.includes(m.issuing_country),
        value: m.issuing_country,
        expected: template.allowed_issuing_countries,
        reason_code: 'document_country_not_allowed',
      },
      accepted,
    );
    const name = subjectName(applicant);
    const docName = mrzName(m);
    const score = name && docName ? compare('Person', name, docName).score : null;
    sub(
      {
        name: 'name_matches_applicant',
        passed: score === null ? null : score >= NAME_MATCH_THRESHOLD,
        value: { document: docName, applicant: name ?? null, score, threshold: NAME_MATCH_THRESHOLD },
        reason_code: 'document_data_mismatch',
      },
      true,
    );
    sub(
      {
        name: 'dob_matches_applicant',
        passed: !applicant.dob || !m.birth_date ? null : applicant.dob === m.birth_date,
        value: { document: m.birth_date, applicant: applicant.dob ?? null },
        reason_code: 'document_data_mismatch',
      },
      true,
    );
  }
  if (r) {
    sub(
      {
        name: 'image_quality',
        passed: r.quality.ok,
        value: r.quality,
        reason_code: 'document_quality_low',
      },
      true,
    );
  }
  sub(
    {
      name: 'face_present',
      passed: doc.face_count > 0,
      value: doc.face_count,
      reason_code: 'document_no_face',
    },
    !!r || !doc.error,
  );
  return outcome([...signals], subs, doc, started, null);
}

function outcome(
  signals: string[],
  subs: SubCheck[],
  doc: ReadUpload | undefined,
  started: number,
  error: string | null,
): CheckOutcome {
  const r = doc?.reading ?? null;
  return {
    check_type: 'document',
    status: 'completed',
    result: signals.length ? 'hit' : 'clear',
    signals,
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
    dataset_versions: [],
    datasets: [],
    evidence: {
      document_id: doc?.document_id ?? null,
      doc_type: doc?.doc_type ?? null,
      sub_checks: subs,
      reading: r ? { ...reportedReading(r), error: r.error ?? null } : null,
      read_error: doc?.error ?? null,
      faces: doc?.faces ?? [],
      image: doc ? { width: doc.image_width, height: doc.image_height } : null,
    },
    error,
    alerts: [],
  };
}
