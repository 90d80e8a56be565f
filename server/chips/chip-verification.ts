// The chip_verify job: passive authentication of a submitted chip on an identity thread, against the trust store's
// current version; the DG2 portrait stored as JPEG under the applicant's prefix and its face embedding kept (with
// consent.biometric) for the selfie check; then the flow is offered to resume.
import type { ChipData } from '../../identity/chip/index.js';
import type { Bus } from '../bus/jetstream.js';
import { type RunningWorker, runWorker } from '../bus/jetstream.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { applicantPrefix } from '../documents/document-keys.js';
import type { IdentityPool } from '../identity/identity-pool.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/s3.js';
import type { TrustAnchors } from '../trust-store/trust-store.js';

export interface ChipVerificationDeps {
  sql: Sql;
  store: ObjectStore;
  bus: Bus;
  log: Logger;
  pool: IdentityPool;
  anchors: TrustAnchors;
  onVerified(tenantId: string, flowId: string): Promise<unknown>;
  concurrency: number;
}

interface ChipRow {
  document_id: string;
  tenant_id: string;
  flow_id: string;
  applicant_id: string;
  checked_at: Date | null;
  consent: { biometric?: boolean } | null;
}

/** Where the chip portrait of a document is kept (erased with the applicant's prefix). */
export const chipPortraitKey = (tenantId: string, applicantId: string, documentId: string) =>
  `${applicantPrefix(tenantId, applicantId)}chip-portraits/${documentId}.jpg`;

async function chipData(sql: Sql, documentId: string): Promise<ChipData> {
  const files = new Map(
    (
      await sql<{ name: string; bytes: Buffer }[]>`
      select name, bytes from document_chip_files where document_id = ${documentId}`
    ).map((f) => [f.name, f.bytes]),
  );
  const data_groups: ChipData['data_groups'] = {};
  for (const [name, bytes] of files) {
    const m = /^dg(\d+)$/.exec(name);
    if (m) data_groups[Number(m[1])] = bytes;
  }
  const challenge = files.get('aa_challenge');
  const signature = files.get('aa_signature');
  return {
    sod: files.get('sod') ?? Buffer.alloc(0),
    data_groups,
    document_signer: files.get('document_signer') ?? null,
    active_authentication: challenge && signature ? { challenge, signature } : null,
  };
}

/** Verifies one document's chip (idempotent: a chip checked already is not checked again). */
export async function verifyDocumentChip(
  deps: ChipVerificationDeps,
  documentId: string,
): Promise<'verified' | 'noop'> {
  const { sql } = deps;
  const [c] = await sql<(ChipRow & { erased: boolean })[]>`
    select c.document_id, c.tenant_id, c.flow_id, c.applicant_id, c.checked_at, a.consent,
           a.erased_at is not null as erased
    from document_chips c join applicants a on a.id = c.applicant_id and a.tenant_id = c.tenant_id
    where c.document_id = ${documentId}`;
  // published inside the submission's transaction: it may not have committed yet (retry), or ever (give up)
  if (!c) throw new ChipNotCommitted(documentId);
  if (c.erased) return 'noop';
  if (!c.checked_at) {
    const anchors = await deps.anchors.current();
    const r = await deps.pool.verifyChip({ kind: 'chip', chip: await chipData(sql, documentId), anchors });
    const key = r.portrait ? chipPortraitKey(c.tenant_id, c.applicant_id, documentId) : null;
    if (key && r.portrait) await deps.store.put(key, Buffer.from(r.portrait), 'image/jpeg');
    const faces = r.faces?.faces ?? [];
    await transaction(sql, async (tx) => {
      const updated = await tx`
        update document_chips set report = ${json(tx, { ...r.report, portrait_faces: faces.map(({ embedding: _e, ...f }) => f) })},
          verified = ${r.report.verified}, trust_store_version = ${r.report.trust_store_version},
          portrait_key = ${key}, face_count = ${faces.length}, error = ${r.portrait_error}, checked_at = now()
        where document_id = ${documentId} and checked_at is null
        returning document_id`;
      if (!updated.length || c.consent?.biometric !== true || !faces.length) return;
      await tx`
        insert into face_embeddings ${tx(
          faces.map((f, i) => ({
            tenant_id: c.tenant_id,
            applicant_id: c.applicant_id,
            document_id: documentId,
            source: 'chip',
            face_index: i,
            embedding: f.embedding,
          })),
        )} on conflict do nothing`;
    });
    deps.log.debug(
      { document_id: documentId, verified: r.report.verified, took_ms: r.took_ms },
      'chip verified',
    );
  }
  await deps.onVerified(c.tenant_id, c.flow_id);
  return c.checked_at ? 'noop' : 'verified';
}

export class ChipNotCommitted extends Error {
  constructor(documentId: string) {
    super(`the chip of document ${documentId} is not committed`);
  }
}

/** Verifies submitted chips on whichever worker process takes the job; the work runs on the identity pool. */
export function startChipVerifyWorker(deps: ChipVerificationDeps): Promise<RunningWorker> {
  return runWorker<{ document_id: string }>(deps.bus, deps.log, {
    kind: 'chip_verify',
    max_deliver: 5,
    backoff_ms: [1_000, 5_000, 30_000],
    ack_wait_ms: 30_000,
    concurrency: deps.concurrency,
    async handle({ document_id }, { log }) {
      await verifyDocumentChip({ ...deps, log }, document_id);
    },
    async onGiveUp({ document_id }, err, log) {
      // a submission that never committed: nothing to verify
      if (err instanceof ChipNotCommitted) return;
      // recorded as checked with an error: the document check then fails chip_read (review), the flow moves on
      log.error({ err }, 'chip verification gave up');
      const [c] = await deps.sql<{ tenant_id: string; flow_id: string }[]>`
        update document_chips set error = ${`verification_failed: ${(err as Error).message?.slice(0, 500)}`},
          checked_at = now()
        where document_id = ${document_id} and checked_at is null
        returning tenant_id, flow_id`;
      if (c) await deps.onVerified(c.tenant_id, c.flow_id);
    },
  });
}
