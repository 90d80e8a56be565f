// Identifier normalisation: upper case, letters and digits only (any script), so "D366 871" and "D366871"
// compare equal. Crypto wallets get the same treatment (entity.ts contract: upper case) — queries must be
// normalised with this same function. Values that normalise to nothing are dropped by the caller.

export function normalizeIdentifier(raw: string, type?: string): string {
  const v = raw
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
  // "IMO 9187629" (FtM, CSL) and "9187629" (OFAC) must compare equal.
  if (type === 'imo' && /^IMO\d+$/.test(v)) return v.slice(3);
  return v;
}
