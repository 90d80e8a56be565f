import type { CheckType } from '../../schemas/checks.js';
import type { CheckTypeDef } from './check-type.js';
import { amlScreen } from './types/aml-screen.js';
import { countryRisk } from './types/country-risk.js';
import { deviceFingerprint } from './types/device-fingerprint.js';
import { documentType } from './types/document.js';
import { ipRisk } from './types/ip-risk.js';
import { selfieType } from './types/selfie.js';

/** Every check type the service can run: one line each (see "A check type" in docs/architecture.md).
 * A Map, so a template naming an unregistered type is simply unknown here. */
export const CHECK_TYPES: ReadonlyMap<string, CheckTypeDef> = new Map<CheckType, CheckTypeDef>(
  [amlScreen, countryRisk, ipRisk, deviceFingerprint, documentType, selfieType].map((t) => [t.type, t]),
);

export const checkType = (type: string): CheckTypeDef | undefined => CHECK_TYPES.get(type);

/** A check that runs on its inputs alone (no uploads): a template made only of these is "checks-only". A type
 * that is not registered is never checks-only. */
export const runsWithoutUploads = (type: string): boolean => checkType(type)?.needs_upload === false;

/** A template made only of checks that need no uploads, and no required documents, runs in sync mode. */
export function isChecksOnly(t: { required_checks: string[]; required_documents: unknown[] }): boolean {
  return t.required_checks.every(runsWithoutUploads) && t.required_documents.length === 0;
}
