// One test per decision rule (docs/decisions/checks.md), and the recorder's decision of one check.
import { describe, expect, it } from 'vitest';
import { decideOutcome } from '../../server/checks/recorder.js';
import { CHECK_TYPES, isChecksOnly } from '../../server/checks/registry.js';
import { decideCheck, decideFlow, REASON_CODES, ruleFor } from '../../server/checks/rules.js';
import { type CheckPolicy, DEFAULT_CHECK_POLICY } from '../../server/policy/check-policy.js';

const policy = (p: Partial<CheckPolicy> = {}): CheckPolicy => ({ ...DEFAULT_CHECK_POLICY, ...p });

describe('decision rules', () => {
  it('sends every AML dataset match to manual review: a name match is never auto-rejected', () => {
    for (const d of ['sanctions', 'pep', 'pep_rca', 'wanted', 'debarment', 'soe', 'crypto_wallets']) {
      expect(ruleFor(`aml_${d}_match`, policy())).toBe('MANUAL_REVIEW');
    }
  });

  it('sends a strong AML match (at or above the fail threshold) to manual review, not rejection', () => {
    expect(ruleFor('aml_strong_match', policy())).toBe('MANUAL_REVIEW');
  });

  it('rejects a FATF black-listed country when the policy blocks, reviews it when the policy flags', () => {
    expect(ruleFor('fatf_black', policy({ fatf_black_handling: 'block' }))).toBe('REJECTED');
    expect(ruleFor('fatf_black', policy({ fatf_black_handling: 'flag' }))).toBe('MANUAL_REVIEW');
  });

  it('reviews a FATF grey-listed country when the policy flags, ignores it when the policy says ignore', () => {
    expect(ruleFor('fatf_grey', policy({ fatf_grey_handling: 'flag' }))).toBe('MANUAL_REVIEW');
    expect(ruleFor('fatf_grey', policy({ fatf_grey_handling: 'ignore' }))).toBeNull();
  });

  it("rejects a country in the policy's blocked_countries", () => {
    expect(ruleFor('blocked_country', policy())).toBe('REJECTED');
  });

  it('treats VPN, proxy, Tor and hosting IPs by vpn_policy: allow ignores, review reviews, block rejects', () => {
    for (const code of ['vpn_detected', 'proxy_detected', 'tor_detected', 'hosting_ip']) {
      expect(ruleFor(code, policy({ vpn_policy: 'allow' }))).toBeNull();
      expect(ruleFor(code, policy({ vpn_policy: 'review' }))).toBe('MANUAL_REVIEW');
      expect(ruleFor(code, policy({ vpn_policy: 'block' }))).toBe('REJECTED');
    }
  });

  it('reviews a device above the velocity threshold', () => {
    expect(ruleFor('device_velocity', policy())).toBe('MANUAL_REVIEW');
  });

  it('reviews a check that could not produce a result', () => {
    expect(ruleFor('check_error', policy())).toBe('MANUAL_REVIEW');
  });

  it('rejects an expired document, a forbidden document type or issuing state (accepted readings only raise them)', () => {
    for (const code of ['document_expired', 'document_type_not_allowed', 'document_country_not_allowed']) {
      expect(ruleFor(code, policy())).toBe('REJECTED');
    }
  });

  it('reviews an unreadable, unconfirmed, low-quality or inconsistent document and one without a face', () => {
    for (const code of [
      'document_unreadable',
      'document_check_digits_invalid',
      'document_reading_unconfirmed',
      'document_quality_low',
      'document_data_mismatch',
      'document_no_face',
    ]) {
      expect(ruleFor(code, policy())).toBe('MANUAL_REVIEW');
    }
  });

  it('rejects a selfie of another person; reviews no face, several faces, no portrait, no consent', () => {
    expect(ruleFor('selfie_face_mismatch', policy())).toBe('REJECTED');
    for (const code of [
      'selfie_no_face',
      'selfie_multiple_faces',
      'selfie_no_document_face',
      'biometric_consent_missing',
    ]) {
      expect(ruleFor(code, policy())).toBe('MANUAL_REVIEW');
    }
  });

  it('sends a low liveness score to review and never rejects on it alone', () => {
    expect(ruleFor('selfie_liveness_low', policy())).toBe('MANUAL_REVIEW');
    expect(decideCheck(['selfie_liveness_low'], policy()).decision).toBe('MANUAL_REVIEW');
  });

  it('reviews a code no check type declares (fail safe)', () => {
    expect(ruleFor('something_new', policy())).toBe('MANUAL_REVIEW');
  });

  it('lets the strictest decision win and keeps only the codes the policy counts, sorted and unique', () => {
    const p = policy({ vpn_policy: 'allow', fatf_black_handling: 'block' });
    expect(decideCheck(['vpn_detected', 'aml_pep_match', 'fatf_black', 'aml_pep_match'], p)).toEqual({
      decision: 'REJECTED',
      reason_codes: ['aml_pep_match', 'fatf_black'],
    });
    expect(decideCheck(['vpn_detected'], p)).toEqual({ decision: 'AUTO_APPROVED', reason_codes: [] });
  });

  it("takes the template's default decision for a flow when no check raised a code", () => {
    const clear = { decision: 'AUTO_APPROVED' as const, reason_codes: [] };
    expect(decideFlow([clear, clear], 'MANUAL_REVIEW')).toEqual({
      decision: 'MANUAL_REVIEW',
      reason_codes: [],
    });
    expect(
      decideFlow([clear, { decision: 'REJECTED', reason_codes: ['blocked_country'] }], 'AUTO_APPROVED'),
    ).toEqual({ decision: 'REJECTED', reason_codes: ['blocked_country'] });
  });

  it('lists every code a registered check type declares in the catalogue, with a description', () => {
    for (const t of CHECK_TYPES.values()) {
      for (const code of Object.keys(t.reason_codes)) expect(REASON_CODES[code]).toEqual(expect.any(String));
    }
    expect(REASON_CODES.check_error).toEqual(expect.any(String));
  });
});

describe("the recorder's decision of one check", () => {
  it('decides a completed check by its signals', () => {
    expect(decideOutcome({ status: 'completed', signals: ['aml_sanctions_match'] }, policy())).toEqual({
      decision: 'MANUAL_REVIEW',
      reason_codes: ['aml_sanctions_match'],
    });
    expect(decideOutcome({ status: 'completed', signals: [] }, policy())).toEqual({
      decision: 'AUTO_APPROVED',
      reason_codes: [],
    });
  });

  it('gives a failed check a decision only through a code the policy counts', () => {
    expect(decideOutcome({ status: 'failed', signals: ['check_error'] }, policy())).toEqual({
      decision: 'MANUAL_REVIEW',
      reason_codes: ['check_error'],
    });
    expect(decideOutcome({ status: 'failed', signals: [] }, policy())).toEqual({
      decision: null,
      reason_codes: [],
    });
  });
});

describe('check-type registry', () => {
  it('calls a template checks-only when every required check runs without uploads and no document is required', () => {
    expect(isChecksOnly({ required_checks: ['aml_screen', 'country_risk'], required_documents: [] })).toBe(
      true,
    );
    expect(isChecksOnly({ required_checks: ['aml_screen', 'document'], required_documents: [] })).toBe(false);
    expect(isChecksOnly({ required_checks: ['aml_screen'], required_documents: [{}] })).toBe(false);
  });
});
