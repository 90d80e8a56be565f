import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type {
  DocumentCapture,
  DocumentCreateIn,
  DocumentMimeType,
  DocumentOut,
  UploadStatus,
} from '../../schemas/documents.js';
import type { ChallengePose } from '../../schemas/liveness.js';
import { actorOf, writeAudit } from '../audit/audit.js';
import type { Principal } from '../auth/principal.js';
import type { Bus } from '../bus/jetstream.js';
import { type Sql, transaction } from '../db/sql.js';
import { NotFound, NotPermitted, StateConflict } from '../domain-errors.js';
import { ApiError, invalid } from '../errors.js';
import { challengeFrame, frameTaken } from '../liveness/challenge-frames.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/s3.js';
import { documentKey, sniffMime, uploadKey } from './document-keys.js';
import { dropUpload, readDocumentObject, sealUpload, sha256Hex } from './document-object.js';

export interface DocumentDeps {
  sql: Sql;
  store: ObjectStore;
  bus: Bus;
  log: Logger;
  maxBytes: number;
  uploadTtlSeconds: number;
  previewTtlSeconds: number;
  /** moves an AWAITING_INPUT flow on (wired to flow processing in app.ts; see flow-resume.ts) */
  resumeFlow?: (tenantId: string, flowId: string) => Promise<boolean>;
}

/** Upload types the identity worker reads (documents: MRZ + portrait; selfie: faces). Others (proof_of_address)
 * are stored and verified only. */
export const ANALYSED_DOC_TYPES: ReadonlySet<string> = new Set([
  'id_document',
  'passport',
  'id_card',
  'driving_license',
  'residence_permit',
  'selfie',
]);

export interface DocumentRow {
  id: string;
  tenant_id: string;
  seq: string;
  flow_id: string;
  applicant_id: string;
  doc_type: DocumentOut['doc_type'];
  side: DocumentOut['side'];
  mime_type: DocumentMimeType;
  storage_key: string;
  /** where the presigned PUT writes (null on rows from before sealing) */
  upload_key: string | null;
  upload_status: UploadStatus;
  capture: DocumentCapture;
  rejection_reason: DocumentOut['rejection_reason'];
  size_bytes: string | null;
  sha256: string | null;
  upload_expires_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  verified_at: Date | null;
  /** set on a frame of a liveness challenge (server/liveness/) */
  liveness_challenge_id: string | null;
  pose: ChallengePose | null;
  /** selected by the reads below (analysisStatus) */
  analysis_status?: DocumentOut['analysis_status'];
}

export function documentOut(d: DocumentRow): DocumentOut {
  return {
    id: d.id,
    flow_id: d.flow_id,
    doc_type: d.doc_type,
    side: d.side,
    mime_type: d.mime_type,
    upload_status: d.upload_status,
    capture: d.capture,
    rejection_reason: d.rejection_reason,
    size_bytes: d.size_bytes === null ? null : Number(d.size_bytes),
    sha256: d.sha256,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    completed_at: d.completed_at?.toISOString() ?? null,
    verified_at: d.verified_at?.toISOString() ?? null,
    liveness_challenge_id: d.liveness_challenge_id,
    pose: d.pose,
    analysis_status: d.analysis_status ?? null,
  };
}

const TERMINAL_FLOW = new Set(['APPROVED', 'REJECTED', 'FAILED']);

/** A flow that accepts uploads, with what its template and applicant allow. */
export interface OpenFlow {
  id: string;
  applicant_id: string;
  status: string;
  allowed_document_types: string[] | null;
  required_checks: string[] | null;
  document_capture_mode: string | null;
  consent: { biometric?: boolean } | null;
}

/** The flow of this tenant that may still receive inputs: 404 when there is none (or its applicant is erased), 409
 * when it is decided. */
export async function openFlow(sql: Sql, tenantId: string, flowId: string): Promise<OpenFlow> {
  const [flow] = await sql<OpenFlow[]>`
    select f.id, f.applicant_id, f.status, t.allowed_document_types, t.required_checks, t.document_capture_mode,
           a.consent
    from flows f
    join applicants a on a.id = f.applicant_id and a.tenant_id = f.tenant_id
    left join flow_templates t on t.id = f.flow_template_id
    where f.id = ${flowId} and f.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!flow) throw new NotFound('Flow');
  if (TERMINAL_FLOW.has(flow.status)) {
    throw new StateConflict('conflict', `The flow is ${flow.status}: it accepts no more documents`);
  }
  return flow;
}

/** Registers a document on a flow and returns presigned PUT instructions for its bytes. */
export async function createDocument(
  deps: DocumentDeps,
  principal: Principal,
  tenantId: string,
  flowId: string,
  input: DocumentCreateIn,
  requestId: string,
) {
  const { sql, store } = deps;
  const flow = await openFlow(sql, tenantId, flowId);
  const side = input.side ?? 'single';
  const capture = captureOf(principal, input.capture, flow);
  assertUploadAllowed(flow, input.doc_type, side);
  const frame = await challengeFrame(sql, tenantId, flowId, input);
  assertChallengedSelfie(principal, input.doc_type, frame);
  const id = randomUUID();
  const mime: DocumentMimeType = input.mime_type ?? 'image/jpeg';
  const key = documentKey(tenantId, flow.applicant_id, id);
  const upload = uploadKey(tenantId, flow.applicant_id, id);
  const expiresIn = deps.uploadTtlSeconds;
  const url = await getSignedUrl(
    store.client,
    new PutObjectCommand({ Bucket: store.bucket, Key: upload, ContentType: mime }),
    { expiresIn, signableHeaders: new Set(['content-type']) },
  );
  const row = await transaction(sql, async (tx) => {
    const [d] = await tx<DocumentRow[]>`
      insert into documents (id, tenant_id, flow_id, applicant_id, doc_type, side, mime_type, storage_key,
                             upload_key, upload_expires_at, liveness_challenge_id, pose, capture)
      values (${id}, ${tenantId}, ${flowId}, ${flow.applicant_id}, ${input.doc_type}, ${side}, ${mime}, ${key},
              ${upload}, now() + make_interval(secs => ${expiresIn}), ${frame?.liveness_challenge_id ?? null},
              ${frame?.pose ?? null}, ${capture})
      returning *`.catch(frameTaken(frame));
    if (!d) throw new Error('document insert returned nothing');
    await writeAudit(tx, {
      tenant_id: tenantId,
      ...actorOf(principal),
      action: 'document.created',
      resource_type: 'document',
      resource_id: id,
      request_id: requestId,
      details: { flow_id: flowId, doc_type: input.doc_type, side, mime_type: mime, capture, ...frame },
    });
    return d;
  });
  return {
    id: row.id,
    flow_id: row.flow_id,
    doc_type: row.doc_type,
    side: row.side,
    mime_type: row.mime_type,
    liveness_challenge_id: row.liveness_challenge_id,
    pose: row.pose,
    upload: {
      url,
      method: 'PUT' as const,
      headers: { 'content-type': mime },
      expires_in: expiresIn,
      max_bytes: deps.maxBytes,
    },
    upload_status: row.upload_status,
    capture: row.capture,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * How an upload was captured, recorded on the document: a tenant credential's is `api` (the server cannot know how
 * its client made the image, so it does not ask); an applicant session says `camera` or `upload` (hosted_camera /
 * hosted_upload), and a `live_only` template refuses `upload`. An applicant uploads only while its flow collects.
 */
function captureOf(
  principal: Principal,
  said: 'camera' | 'upload' | undefined,
  flow: { status: string; document_capture_mode: string | null },
): DocumentCapture {
  if (principal.kind !== 'applicant') {
    if (said === undefined) return 'api';
    throw invalid(
      ['body', 'capture'],
      'only an applicant session says how it captured; an upload with a tenant credential is recorded as api',
      'not_allowed',
    );
  }
  if (!['PENDING', 'AWAITING_INPUT'].includes(flow.status)) {
    throw new StateConflict('flow_not_collecting', undefined, { status: flow.status });
  }
  if (said === undefined) {
    throw invalid(['body', 'capture'], 'say how the image was captured: camera or upload', 'missing');
  }
  if (said === 'upload' && flow.document_capture_mode === 'live_only') {
    throw new NotPermitted(
      'capture_mode_not_allowed',
      'This verification takes documents from the live camera only (document_capture_mode live_only)',
      { document_capture_mode: 'live_only' },
    );
  }
  return said === 'camera' ? 'hosted_camera' : 'hosted_upload';
}

/** The applicant's journey takes its selfie with a liveness challenge (its selfie step says `liveness: true`): an
 * applicant session's selfie must be a frame of one. A plain selfie would meet the flow's selfie input without the
 * challenge and so skip its review routing; a tenant credential may still send one (its own capture, which it
 * vouches for, as with `capture`). */
function assertChallengedSelfie(principal: Principal, docType: string, frame: unknown): void {
  if (principal.kind !== 'applicant' || docType !== 'selfie' || frame) return;
  throw invalid(
    ['body', 'liveness_challenge_id'],
    'a selfie of the applicant journey is a frame of a liveness challenge: POST /v1/flows/{flow_id}/liveness_challenges, then one selfie per pose with liveness_challenge_id and pose',
    'missing',
  );
}

/** The template decides what a flow accepts: `allowed_document_types` (when set), a selfie only on a template with
 * the selfie check and only with the applicant's biometric consent (docs/decisions.md, "Identity verification"). */
function assertUploadAllowed(
  flow: {
    allowed_document_types: string[] | null;
    required_checks: string[] | null;
    consent: { biometric?: boolean } | null;
  },
  docType: string,
  side: string,
): void {
  if (docType === 'selfie') {
    if (!flow.required_checks?.includes('selfie')) {
      throw invalid(
        ['body', 'doc_type'],
        "selfie uploads are accepted only on flows whose template has the 'selfie' check",
        'not_allowed',
      );
    }
    if (side !== 'single') throw invalid(['body', 'side'], 'a selfie has side "single"', 'value_error');
    if (flow.consent?.biometric !== true) {
      throw new ApiError('biometric_consent_required', {
        loc: ['body', 'doc_type'],
        details: { field: 'applicant.consent.biometric' },
      });
    }
    return;
  }
  const allowed = flow.allowed_document_types ?? [];
  if (allowed.length && !allowed.includes(docType)) {
    throw invalid(
      ['body', 'doc_type'],
      `"${docType}" is not in the template's allowed_document_types (${allowed.join(', ')})`,
      'not_allowed',
    );
  }
}

const IDENTITY_CHECKS = ['document', 'selfie'];

/** `analysis_status` of the document row `d`: read (`done`), waiting for the identity worker (`pending`: a type it
 * reads, on a flow whose template has an identity check), or not read at all (`not_applicable`). */
const analysisStatus = (sql: Sql) => sql`
  case when d.upload_status <> 'verified' then null
       when exists (select 1 from document_readings r where r.document_id = d.id) then 'done'
       when d.doc_type = any(${[...ANALYSED_DOC_TYPES]}::text[]) and exists (
         select 1 from flows f join flow_templates t on t.id = f.flow_template_id
         where f.id = d.flow_id and t.required_checks && ${IDENTITY_CHECKS}::text[]) then 'pending'
       else 'not_applicable' end as analysis_status`;

async function documentOf(sql: Sql, tenantId: string, flowId: string, id: string): Promise<DocumentRow> {
  const [d] = await sql<DocumentRow[]>`
    select d.*, ${analysisStatus(sql)}
    from documents d
    join applicants a on a.id = d.applicant_id and a.tenant_id = d.tenant_id
    where d.id = ${id} and d.flow_id = ${flowId} and d.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!d) throw new NotFound('Document');
  return d;
}

export async function getDocument(deps: DocumentDeps, tenantId: string, flowId: string, id: string) {
  return documentOut(await documentOf(deps.sql, tenantId, flowId, id));
}

export async function listFlowDocuments(deps: DocumentDeps, tenantId: string, flowId: string) {
  const { sql } = deps;
  const [flow] = await sql<{ id: string }[]>`
    select f.id from flows f join applicants a on a.id = f.applicant_id and a.tenant_id = f.tenant_id
    where f.id = ${flowId} and f.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!flow) throw new NotFound('Flow');
  return { items: await flowDocuments(sql, tenantId, flowId), next_cursor: null };
}

/** A flow's documents as the API shows them (also inside GET /v1/flows/{id}), oldest first. */
export async function flowDocuments(sql: Sql, tenantId: string, flowId: string): Promise<DocumentOut[]> {
  const rows = await sql<DocumentRow[]>`
    select d.*, ${analysisStatus(sql)}
    from documents d where d.tenant_id = ${tenantId} and d.flow_id = ${flowId} order by d.seq limit 200`;
  return rows.map(documentOut);
}

export const verifyJobId = (documentId: string) => `document_verify:${documentId}`;
export const analyzeJobId = (documentId: string) => `document_analyze:${documentId}`;

/** The client says the bytes are uploaded: pending → uploaded seals them (a copy the upload URL cannot reach, made
 * under the row's lock so that two completes cannot seal different bytes), uploaded → uploaded only queues the
 * verification again. */
export async function completeDocument(
  deps: DocumentDeps,
  principal: Principal,
  tenantId: string,
  flowId: string,
  id: string,
  requestId: string,
): Promise<{ document_id: string; upload_status: UploadStatus }> {
  await documentOf(deps.sql, tenantId, flowId, id);
  const moved = await transaction(deps.sql, async (tx) => {
    const [cur] = await tx<DocumentRow[]>`
      select * from documents where id = ${id} and tenant_id = ${tenantId} for update`;
    if (cur?.upload_status === 'pending') await sealUpload(deps.store, cur);
    const [d] = await tx<DocumentRow[]>`
      update documents set upload_status = 'uploaded', completed_at = coalesce(completed_at, now()), updated_at = now()
      where id = ${id} and tenant_id = ${tenantId} and upload_status in ('pending', 'uploaded')
      returning *`;
    if (!d) return undefined;
    await writeAudit(tx, {
      tenant_id: tenantId,
      ...actorOf(principal),
      action: 'document.completed',
      resource_type: 'document',
      resource_id: id,
      request_id: requestId,
      details: { flow_id: flowId },
    });
    return d;
  });
  if (!moved) {
    const cur = await documentOf(deps.sql, tenantId, flowId, id);
    throw new StateConflict('document_state_conflict', `The document is already ${cur.upload_status}`, {
      upload_status: cur.upload_status,
    });
  }
  await dropUpload(deps.store, deps.log, moved);
  await deps.bus.publishJob('document_verify', { document_id: id, tenant_id: tenantId }, verifyJobId(id));
  return { document_id: id, upload_status: 'uploaded' };
}

export async function previewDocument(deps: DocumentDeps, tenantId: string, flowId: string, id: string) {
  const d = await documentOf(deps.sql, tenantId, flowId, id);
  if (d.upload_status !== 'verified') {
    throw new StateConflict(
      'document_state_conflict',
      `Only verified documents can be previewed (this one is ${d.upload_status})`,
      { upload_status: d.upload_status },
    );
  }
  // the operator is shown the verified bytes or nothing: a mismatch rejects the document (409)
  await readDocumentObject(deps, d, 'preview');
  return presignedView(deps.store, d.storage_key, d.mime_type, deps.previewTtlSeconds);
}

/** A short-lived presigned GET of an object that a browser shows inline and never caches. */
export async function presignedView(store: ObjectStore, key: string, contentType: string, expiresIn: number) {
  const url = await getSignedUrl(
    store.client,
    new GetObjectCommand({
      Bucket: store.bucket,
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: 'inline',
      ResponseCacheControl: 'private, no-store',
    }),
    { expiresIn },
  );
  return {
    url,
    method: 'GET' as const,
    content_type: contentType,
    expires_in: expiresIn,
    expires_at: new Date(Date.now() + expiresIn * 1000).toISOString(),
  };
}

type Rejection = NonNullable<DocumentOut['rejection_reason']>;

/** The verification job: the sealed bytes (size, magic numbers) → verified with their SHA-256 and size, which every
 * later read checks, or rejected (the bytes deleted at once). Idempotent: a document that is no longer `uploaded` is
 * left alone. */
export async function verifyDocument(deps: DocumentDeps, documentId: string): Promise<UploadStatus | 'noop'> {
  const { sql, store } = deps;
  const [d] = await sql<DocumentRow[]>`select * from documents where id = ${documentId}`;
  if (d?.upload_status === 'verified') {
    // a redelivery after the update: what follows verification may not have happened (publish failed)
    await afterVerified(deps, d);
    return 'noop';
  }
  if (d?.upload_status !== 'uploaded') return 'noop';
  const read = await readDocumentObject(deps, d, 'verification');
  let reason: Rejection | undefined;
  let size: number | undefined;
  let sha256: string | null = null;
  if (read.kind === 'missing') reason = 'object_missing';
  else if (read.kind === 'too_large') {
    reason = 'too_large';
    size = read.size;
  } else {
    size = read.bytes.length;
    if (size === 0) reason = 'empty';
    else if (sniffMime(read.bytes.subarray(0, 32)) !== d.mime_type) reason = 'content_mismatch';
    else sha256 = sha256Hex(read.bytes);
  }
  if (reason && reason !== 'object_missing') {
    await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: d.storage_key }));
  }
  const status: UploadStatus = reason ? 'rejected' : 'verified';
  const [updated] = await sql<DocumentRow[]>`
    update documents set upload_status = ${status}, rejection_reason = ${reason ?? null}, size_bytes = ${size ?? null},
      sha256 = ${sha256}, verified_at = ${reason ? null : new Date()}, updated_at = now()
    where id = ${documentId} and upload_status = 'uploaded'
    returning *`;
  if (!updated) return 'noop';
  await writeAudit(sql, {
    tenant_id: d.tenant_id,
    actor_type: 'system',
    actor_id: 'document_verify',
    action: reason ? 'document.rejected' : 'document.verified',
    resource_type: 'document',
    resource_id: d.id,
    request_id: null,
    details: { flow_id: d.flow_id, ...(reason ? { reason } : {}), size_bytes: size ?? null, sha256 },
  });
  if (!reason) await afterVerified(deps, d);
  return status;
}

/** A verified upload the identity worker reads is queued for it (the flow moves on once it is read); any other
 * (proof_of_address) counts at once. */
async function afterVerified(deps: DocumentDeps, d: DocumentRow): Promise<void> {
  const [reads] = await deps.sql<{ analysis_status: string | null }[]>`
    select ${analysisStatus(deps.sql)} from documents d where d.id = ${d.id}`;
  if (reads?.analysis_status === 'pending') {
    await deps.bus.publishJob(
      'document_analyze',
      { document_id: d.id, tenant_id: d.tenant_id },
      analyzeJobId(d.id),
    );
    return;
  }
  await onDocumentsComplete(deps, d.tenant_id, d.flow_id);
}

/**
 * Hook into flow processing: called whenever an upload of a flow is ready (verified, and read when it is a type the
 * identity worker reads). deps.resumeFlow moves a flow waiting in AWAITING_INPUT whose inputs are now all there back
 * to processing (see flow-resume.ts). Returns whether it did.
 */
export async function onDocumentsComplete(
  deps: Pick<DocumentDeps, 'log' | 'resumeFlow'>,
  tenantId: string,
  flowId: string,
): Promise<boolean> {
  if (!deps.resumeFlow) {
    deps.log.warn({ flow_id: flowId }, 'documents complete but no flow processing is wired');
    return false;
  }
  return deps.resumeFlow(tenantId, flowId);
}
