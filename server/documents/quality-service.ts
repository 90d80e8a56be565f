import type { CaptureQuality, QualityLook } from '../../identity/quality.js';
import type { DocumentQualityOut } from '../../schemas/documents.js';
import type { Sql } from '../db/sql.js';
import { NotFound, StateConflict } from '../domain-errors.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/s3.js';
import { readDocumentObject, type StoredDocument } from './document-object.js';

export interface QualityDeps {
  sql: Sql;
  store: ObjectStore;
  log: Logger;
  /** DOCUMENT_MAX_BYTES: a larger object is never downloaded */
  maxBytes: number;
  /** the capture-quality measures of one image, on an identity thread of role `quality` */
  measure(image: Uint8Array, look: QualityLook): Promise<CaptureQuality>;
}

/** What an upload must show to be worth submitting, by its side: a selfie one face; a card's front its portrait;
 * a card's back its data (MRZ or barcode); a single-sided document (a passport's data page) both. */
export function expectations(docType: string, side: string): { data: boolean; face: boolean } {
  if (docType === 'selfie') return { data: false, face: true };
  if (docType === 'proof_of_address') return { data: false, face: false };
  if (side === 'front') return { data: false, face: true };
  if (side === 'back') return { data: true, face: false };
  return { data: true, face: true };
}

/** What the quality look searches an upload for: what its side must show; a passport's data page has no barcode. */
export function qualityLook(docType: string, side: string): QualityLook {
  const want = expectations(docType, side);
  return { data: want.data ? (docType === 'passport' ? 'mrz' : 'any') : null, faces: want.face };
}

/** The verdict on measures `q` of an upload: reason codes of the document and selfie checks' catalogue. */
export function qualityVerdict(q: CaptureQuality, docType: string, side: string): DocumentQualityOut {
  const want = expectations(docType, side);
  const selfie = docType === 'selfie';
  const reasons: string[] = [];
  if (q.error) reasons.push(selfie ? 'selfie_no_face' : 'document_unreadable');
  else {
    if (q.problems.length) reasons.push('document_quality_low');
    if (want.data && !q.mrz_found && !q.barcode_found) reasons.push('document_unreadable');
    if (want.face && q.faces === 0) reasons.push(selfie ? 'selfie_no_face' : 'document_no_face');
    if (selfie && (q.faces ?? 0) > 1) reasons.push('selfie_multiple_faces');
  }
  return {
    ok: reasons.length === 0,
    reasons,
    quality_reasons: q.problems,
    blur: q.blur,
    glare: q.glare,
    width: q.width,
    height: q.height,
    mrz_found: q.mrz_found,
    barcode_found: q.barcode_found,
    face_found: q.faces === null ? null : q.faces > 0,
    faces: q.faces,
    took_ms: q.took_ms,
  };
}

interface QualityDoc extends StoredDocument {
  doc_type: string;
  side: string;
}

/** The synchronous capture verdict on an uploaded image (docs/journey.md "Capture quality"): the object as it is in
 * the store now, whether or not `complete` was called; a rejected or missing object is a 409. */
export async function documentQuality(
  deps: QualityDeps,
  tenantId: string,
  flowId: string,
  documentId: string,
): Promise<DocumentQualityOut> {
  const [d] = await deps.sql<QualityDoc[]>`
    select d.id, d.tenant_id, d.flow_id, d.doc_type, d.side, d.upload_status, d.storage_key, d.upload_key, d.sha256,
           d.size_bytes
    from documents d join applicants a on a.id = d.applicant_id and a.tenant_id = d.tenant_id
    where d.id = ${documentId} and d.flow_id = ${flowId} and d.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!d) throw new NotFound('Document');
  const conflict = (reason: string, message: string) =>
    new StateConflict('document_state_conflict', message, { upload_status: d.upload_status, reason });
  if (d.upload_status === 'rejected') throw conflict('rejected', 'The upload was rejected');
  const read = await readDocumentObject(deps, d, 'quality');
  if (read.kind === 'missing')
    throw conflict('object_missing', 'Nothing has been uploaded for this document yet');
  if (read.kind === 'too_large')
    throw conflict('too_large', `The upload has ${read.size} bytes, limit ${deps.maxBytes}`);
  const q = await deps.measure(read.bytes, qualityLook(d.doc_type, d.side));
  return qualityVerdict(q, d.doc_type, d.side);
}
