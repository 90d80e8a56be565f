/** Object keys are per tenant and per applicant, so that erasure deletes one prefix:
 * tenants/<tenant_id>/applicants/<applicant_id>/documents/<document_id> (sealed) and …/uploads/<document_id> */
export function applicantPrefix(tenantId: string, applicantId: string): string {
  return `tenants/${tenantId}/applicants/${applicantId}/`;
}

/** Where the verified bytes live (the sealed copy): only the service writes here. */
export function documentKey(tenantId: string, applicantId: string, documentId: string): string {
  return `${applicantPrefix(tenantId, applicantId)}documents/${documentId}`;
}

/** Where the presigned PUT writes: read until `complete` seals it, never after (the URL stays valid for its
 * lifetime, so what lands here later is read by nothing; erasure removes it with the prefix). */
export function uploadKey(tenantId: string, applicantId: string, documentId: string): string {
  return `${applicantPrefix(tenantId, applicantId)}uploads/${documentId}`;
}

/** Magic-byte sniffing of the accepted formats; undefined when the bytes are none of them. */
export function sniffMime(b: Uint8Array): string | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length >= 8 && png.every((v, i) => b[i] === v)) return 'image/png';
  if (b.length >= 5 && Buffer.from(b.subarray(0, 5)).toString('latin1') === '%PDF-') return 'application/pdf';
  // ISO BMFF: size(4) 'ftyp' brand(4); HEIF/HEIC brands
  if (b.length >= 12 && Buffer.from(b.subarray(4, 8)).toString('latin1') === 'ftyp') {
    const brand = Buffer.from(b.subarray(8, 12)).toString('latin1');
    if (['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
  }
  return undefined;
}
