import type { ReadSide } from '../../identity/document/index.js';
import type { IdentityResult } from '../../identity/worker.js';
import type { Bus } from '../bus/jetstream.js';
import { type RunningWorker, runWorker } from '../bus/jetstream.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { readDocumentObject, type StoredDocument } from '../documents/document-object.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/s3.js';
import type { IdentityPool } from './identity-pool.js';

export interface AnalysisDeps {
  sql: Sql;
  store: ObjectStore;
  bus: Bus;
  log: Logger;
  pool: IdentityPool;
  /** DOCUMENT_MAX_BYTES: a larger object is never downloaded nor decoded */
  maxBytes: number;
  /** an upload of the flow is read: resume the flow when its inputs are complete */
  onAnalysed(tenantId: string, flowId: string): Promise<unknown>;
  /** the threads' concurrency for this process's consumer (IDENTITY_THREADS) */
  concurrency: number;
}

interface DocToRead extends StoredDocument {
  applicant_id: string;
  doc_type: string;
  side: string;
  consent: { biometric?: boolean } | null;
  analysed: boolean;
}

/** The side the reader is told: a front is read for its printed text, anything else for its barcode or MRZ. */
const readSide = (side: string): ReadSide => (side === 'front' || side === 'back' ? side : 'single');

/** The faces as stored and shown: box, score, liveness, never the embedding. */
export function facesWithoutEmbeddings(r: IdentityResult) {
  return r.faces.faces.map(({ embedding: _e, ...f }) => f);
}

/**
 * The document_analyze job: reads a verified upload's object on an identity thread (MRZ + faces for a document,
 * faces for a selfie) and stores the reading; embeddings go to face_embeddings, and only with the applicant's
 * biometric consent. Idempotent: an upload read already is not read again. Then the flow is offered to resume.
 */
export async function analyzeDocument(deps: AnalysisDeps, documentId: string): Promise<'analysed' | 'noop'> {
  const { sql } = deps;
  const [d] = await sql<DocToRead[]>`
    select d.id, d.tenant_id, d.flow_id, d.applicant_id, d.doc_type, d.side, d.upload_status, d.storage_key, d.upload_key,
           d.sha256, d.size_bytes, a.consent,
           exists(select 1 from document_readings r where r.document_id = d.id) as analysed
    from documents d join applicants a on a.id = d.applicant_id and a.tenant_id = d.tenant_id
    where d.id = ${documentId} and d.upload_status = 'verified' and a.erased_at is null`;
  if (!d) return 'noop';
  if (!d.analysed) {
    const kind = d.doc_type === 'selfie' ? ('selfie' as const) : ('document' as const);
    let result: IdentityResult | undefined;
    let error: string | null = null;
    const read = await readVerified(deps, d);
    if (read === undefined) {
      // other bytes than the verified ones: the document is rejected (integrity_mismatch), nothing is read
      await deps.onAnalysed(d.tenant_id, d.flow_id);
      return 'noop';
    }
    if (read.kind === 'bytes') {
      result = await deps.pool.analyze({
        kind,
        image: read.bytes,
        side: readSide(d.side),
        docType: d.doc_type,
      });
    } else error = read.kind === 'missing' ? 'object_missing' : 'too_large';
    const faces = result ? facesWithoutEmbeddings(result) : [];
    const biometric = d.consent?.biometric === true;
    await transaction(sql, async (tx) => {
      const inserted = await tx`
        insert into document_readings ${tx({
          document_id: d.id,
          tenant_id: d.tenant_id,
          flow_id: d.flow_id,
          applicant_id: d.applicant_id,
          kind,
          reading: result?.reading ? json(tx, result.reading) : null,
          faces: json(tx, faces),
          face_count: faces.length,
          image_width: result?.faces.width || null,
          image_height: result?.faces.height || null,
          error: error ?? result?.reading?.error ?? result?.faces.error ?? null,
          took_ms: result?.took_ms ?? 0,
        })}
        on conflict (document_id) do nothing
        returning document_id`;
      if (!inserted.length || !result || !biometric) return;
      const rows = result.faces.faces.map((f, i) => ({
        tenant_id: d.tenant_id,
        applicant_id: d.applicant_id,
        document_id: d.id,
        face_index: i,
        embedding: f.embedding,
      }));
      if (rows.length) await tx`insert into face_embeddings ${tx(rows)} on conflict do nothing`;
    });
    deps.log.debug({ document_id: d.id, kind, took_ms: result?.took_ms, error }, 'upload read');
  }
  await deps.onAnalysed(d.tenant_id, d.flow_id);
  return d.analysed ? 'noop' : 'analysed';
}

/** The verified bytes, or undefined when they are not the verified ones any more (the read rejected the document). */
async function readVerified(deps: AnalysisDeps, d: DocToRead) {
  try {
    return await readDocumentObject(deps, d, 'analysis');
  } catch (err) {
    if (err instanceof ApiError && err.code === 'document_integrity_failed') return undefined;
    throw err;
  }
}

/** Reads verified uploads on whichever worker process takes the job; the heavy work runs on the identity pool's
 * threads, never on the event loop that serves HTTP. */
export function startDocumentAnalyzeWorker(deps: AnalysisDeps): Promise<RunningWorker> {
  return runWorker<{ document_id: string }>(deps.bus, deps.log, {
    kind: 'document_analyze',
    max_deliver: 5,
    backoff_ms: [1_000, 5_000, 30_000],
    ack_wait_ms: 30_000,
    concurrency: deps.concurrency,
    async handle({ document_id }, { log }) {
      await analyzeDocument({ ...deps, log }, document_id);
    },
    async onGiveUp({ document_id }, err, log) {
      // the upload stays unread (analysis_status pending); complete cannot re-queue a verified document, so the
      // failure is recorded as a reading with an error: the document check then routes the flow to review
      log.error({ err }, 'document reading gave up');
      await recordFailedReading(deps.sql, document_id, (err as Error).message ?? String(err));
      const [d] = await deps.sql<{ tenant_id: string; flow_id: string }[]>`
        select tenant_id, flow_id from documents where id = ${document_id}`;
      if (d) await deps.onAnalysed(d.tenant_id, d.flow_id);
    },
  });
}

async function recordFailedReading(sql: Sql, documentId: string, message: string): Promise<void> {
  await sql`
    insert into document_readings (document_id, tenant_id, flow_id, applicant_id, kind, error)
    select id, tenant_id, flow_id, applicant_id, case when doc_type = 'selfie' then 'selfie' else 'document' end,
           ${`analysis_failed: ${message.slice(0, 500)}`}
    from documents where id = ${documentId} and upload_status = 'verified'
    on conflict (document_id) do nothing`;
}
