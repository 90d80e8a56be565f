// Piscina worker for the trust store's uploads (server/trust-store/): reads a master list, a CSCA certificate or a
// CRL off the HTTP thread (a master list of every state is hundreds of certificates) and returns the entries to
// store. Never throws for bad bytes: the answer carries the error's code and message.

import { type Certificate, type Crl, crlSignedBy, parseCertificate, parseCrl } from './certificates.js';
import { type AnchorsByCountry, lazyAnchors, type ParsedAnchors } from './chain.js';
import { readMasterList } from './master-list.js';
import { ChipFormatError } from './tlv.js';

export type TrustTask =
  | { kind: 'master_list'; bytes: Uint8Array; store: AnchorsByCountry }
  | { kind: 'csca'; bytes: Uint8Array }
  | { kind: 'crl'; bytes: Uint8Array; store: AnchorsByCountry };

export interface TrustEntryDraft {
  kind: 'csca' | 'crl';
  country: string;
  subject: string;
  issuer: string;
  serial_number: string | null;
  not_before: string;
  not_after: string | null;
  fingerprint_sha256: string;
  der: Uint8Array;
}

export type TrustResult =
  | {
      ok: true;
      entries: TrustEntryDraft[];
      skipped: string[];
      master_list?: {
        signer: string;
        signer_issuer: 'trust_store' | 'master_list';
        signing_time: string | null;
      };
    }
  | { ok: false; code: string; message: string };

const cache = new Map<string, Certificate | Crl>();

function cscaEntry(c: Certificate): TrustEntryDraft {
  if (!c.country) throw new ChipFormatError('csca_invalid', `${c.subject}: no country (C) in its subject`);
  if (c.ca === false || (c.key_usage && !c.key_usage.includes('keyCertSign'))) {
    throw new ChipFormatError(
      'csca_invalid',
      `${c.subject}: not a CA certificate (basicConstraints, keyCertSign)`,
    );
  }
  return {
    kind: 'csca',
    country: c.country,
    subject: c.subject,
    issuer: c.issuer,
    serial_number: c.serial_number,
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    fingerprint_sha256: c.fingerprint_sha256,
    der: c.der,
  };
}

function crlEntry(crl: Crl, store: ParsedAnchors): TrustEntryDraft {
  if (!crl.country) throw new ChipFormatError('crl_invalid', `${crl.issuer}: no country (C) in its issuer`);
  if (!store.cscasOf(crl.country).some((c) => crlSignedBy(crl, c))) {
    throw new ChipFormatError('crl_invalid', `no CSCA of the store signed this CRL (issuer ${crl.issuer})`);
  }
  return {
    kind: 'crl',
    country: crl.country,
    subject: crl.issuer,
    issuer: crl.issuer,
    serial_number: null,
    not_before: crl.this_update.toISOString(),
    not_after: crl.next_update?.toISOString() ?? null,
    fingerprint_sha256: crl.fingerprint_sha256,
    der: crl.der,
  };
}

function read(task: TrustTask): TrustResult {
  if (task.kind === 'csca')
    return { ok: true, entries: [cscaEntry(parseCertificate(task.bytes))], skipped: [] };
  const store = lazyAnchors(task.store, cache);
  if (task.kind === 'crl') return { ok: true, entries: [crlEntry(parseCrl(task.bytes), store)], skipped: [] };
  const ml = readMasterList(task.bytes, store);
  const skipped = [...ml.skipped];
  const entries: TrustEntryDraft[] = [];
  for (const c of ml.cscas) {
    try {
      entries.push(cscaEntry(c));
    } catch (err) {
      skipped.push((err as Error).message);
    }
  }
  return {
    ok: true,
    entries,
    skipped,
    master_list: {
      signer: ml.signer.subject,
      signer_issuer: ml.signer_issuer,
      signing_time: ml.signing_time,
    },
  };
}

export default function trustTask(task: TrustTask): TrustResult {
  try {
    return read(task);
  } catch (err) {
    if (err instanceof ChipFormatError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
