import { ValidationError, type ValidationIssue } from '../errors.js';

export const IOS_BUNDLE_ID_RE = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
export const IOS_TEAM_ID_RE = /^[A-Z0-9]{10}$/;
export const ANDROID_PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
export const SHA256_FINGERPRINT_RE = /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/;

export interface NativeAppShape {
  platform: 'ios' | 'android';
  identifier: string;
  ios_team_id: string | null;
  android_signing_fingerprints: string[];
}

/** Platform rules; every broken one is reported with its field (loc) in one 422. Fingerprints are normalised to
 * upper case before checking (keytool prints upper case; some tools print lower case). */
export function validateNativeApp(app: NativeAppShape): NativeAppShape {
  const issues: ValidationIssue[] = [];
  const fingerprints = app.android_signing_fingerprints.map((f) => f.trim().toUpperCase());
  if (app.platform === 'ios') {
    if (!IOS_BUNDLE_ID_RE.test(app.identifier) || app.identifier.length > 155) {
      issues.push({
        loc: ['body', 'identifier'],
        msg: 'iOS bundle ID: reverse-DNS of letters, digits and hyphens (e.g. com.acme.kyc), at most 155 characters',
        type: 'bundle_id_format',
      });
    }
    if (app.ios_team_id === null) {
      issues.push({ loc: ['body', 'ios_team_id'], msg: 'Field required for platform ios', type: 'missing' });
    } else if (!IOS_TEAM_ID_RE.test(app.ios_team_id)) {
      issues.push({
        loc: ['body', 'ios_team_id'],
        msg: 'Apple team ID: exactly 10 upper-case letters or digits',
        type: 'team_id_format',
      });
    }
    if (fingerprints.length) {
      issues.push({
        loc: ['body', 'android_signing_fingerprints'],
        msg: 'Only for platform android',
        type: 'not_allowed',
      });
    }
  } else {
    if (!ANDROID_PACKAGE_RE.test(app.identifier)) {
      issues.push({
        loc: ['body', 'identifier'],
        msg: 'Android package name: at least two dot-separated segments, each a letter followed by letters, digits or underscores',
        type: 'package_name_format',
      });
    }
    if (app.ios_team_id !== null) {
      issues.push({ loc: ['body', 'ios_team_id'], msg: 'Only for platform ios', type: 'not_allowed' });
    }
    if (!fingerprints.length) {
      issues.push({
        loc: ['body', 'android_signing_fingerprints'],
        msg: 'At least one SHA-256 signing certificate fingerprint is required for platform android',
        type: 'missing',
      });
    }
    fingerprints.forEach((f, i) => {
      if (!SHA256_FINGERPRINT_RE.test(f)) {
        issues.push({
          loc: ['body', 'android_signing_fingerprints', i],
          msg: 'SHA-256 fingerprint: 32 hex bytes separated by colons (AA:BB:…)',
          type: 'fingerprint_format',
        });
      }
    });
  }
  if (issues.length) throw new ValidationError(issues);
  return { ...app, android_signing_fingerprints: fingerprints };
}
