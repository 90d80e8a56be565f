import { createHash } from 'node:crypto';
import { writeAudit } from '../audit/audit.js';
import { type Sql, transaction } from '../db/sql.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ObjectStore } from '../storage/s3.js';

/**
 * The bytes of a document, read in one place by everything that reads them (verification, preview, the identity
 * worker, the capture-quality verdict): before `complete` what the client uploaded (its upload key), after it the
 * sealed copy (storage_key) that only the service writes — and, once verified, checked against the SHA-256 and size
 * stored at verification. A verified document whose bytes differ (or are gone) is rejected with
 * `integrity_mismatch` and an audit event, and the read fails with 409 document_integrity_failed
 * (docs/decisions/identity.md, "A document is sealed at complete").
 */

export interface StoredDocument {
  id: string;
  tenant_id: string;
  flow_id: string;
  upload_status: string;
  storage_key: string;
  /** null on rows from before sealing: their upload and stored object are one key */
  upload_key: string | null;
  /** of the verified bytes; null until verified (and on rows verified before sealing: read unchecked) */
  sha256: string | null;
  size_bytes: string | number | null;
}

export interface ObjectDeps {
  sql: Sql;
  store: ObjectStore;
  log: Logger;
  /** DOCUMENT_MAX_BYTES: a larger object is never downloaded */
  maxBytes: number;
}

export type ObjectRead =
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'missing' }
  | { kind: 'too_large'; size: number };

/** Who read the bytes, as the audit event of a mismatch names it. */
export type Reader = 'verification' | 'preview' | 'analysis' | 'quality';

export const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The key a read of `d` uses now. */
function currentKey(d: StoredDocument): string {
  return d.upload_status === 'pending' && d.upload_key ? d.upload_key : d.storage_key;
}

export async function readDocumentObject(
  deps: ObjectDeps,
  d: StoredDocument,
  by: Reader,
): Promise<ObjectRead> {
  const read = await readKey(deps.store, currentKey(d), deps.maxBytes);
  if (d.upload_status === 'verified' && d.sha256) {
    const found =
      read.kind === 'bytes' ? { sha256: sha256Hex(read.bytes), size: read.bytes.length } : undefined;
    if (!found || found.sha256 !== d.sha256 || found.size !== Number(d.size_bytes)) {
      await rejectAltered(deps, d, found ?? (read.kind === 'too_large' ? { size: read.size } : {}), by);
      throw new ApiError('document_integrity_failed', {
        details: { document_id: d.id, rejection_reason: 'integrity_mismatch' },
      });
    }
  }
  return read;
}

async function readKey(store: ObjectStore, key: string, maxBytes: number): Promise<ObjectRead> {
  const head = await store.head(key);
  if (!head) return { kind: 'missing' };
  const size = head.size;
  if (size > maxBytes) return { kind: 'too_large', size };
  const bytes = await store.get(key);
  if (!bytes) return { kind: 'missing' };
  return bytes.length > maxBytes ? { kind: 'too_large', size: bytes.length } : { kind: 'bytes', bytes };
}

/** verified → rejected (integrity_mismatch) with its audit event, once: a later read finds it rejected. */
async function rejectAltered(
  deps: ObjectDeps,
  d: StoredDocument,
  found: { sha256?: string; size?: number },
  by: Reader,
): Promise<void> {
  const details = {
    flow_id: d.flow_id,
    read_by: by,
    expected_sha256: d.sha256,
    expected_size: Number(d.size_bytes),
    found_sha256: found.sha256 ?? null,
    found_size: found.size ?? null,
  };
  deps.log.warn(
    { document_id: d.id, tenant_id: d.tenant_id, ...details },
    'document bytes altered after verification',
  );
  await transaction(deps.sql, async (tx) => {
    const [moved] = await tx`
      update documents set upload_status = 'rejected', rejection_reason = 'integrity_mismatch', updated_at = now()
      where id = ${d.id} and upload_status = 'verified'
      returning id`;
    if (!moved) return;
    await writeAudit(tx, {
      tenant_id: d.tenant_id,
      actor_type: 'system',
      actor_id: 'document_integrity',
      action: 'document.integrity_failed',
      resource_type: 'document',
      resource_id: d.id,
      request_id: null,
      details,
    });
  });
}

/**
 * `complete`'s seal: the upload is copied (inside the store) to the document's own key, which the upload URL
 * cannot reach; from here on nothing reads the upload key. Returns false when nothing was uploaded (verification
 * then rejects the document as object_missing). Rows from before sealing have one key: nothing to copy.
 */
export async function sealUpload(store: ObjectStore, d: StoredDocument): Promise<boolean> {
  if (!d.upload_key) return true;
  return store.copy(d.upload_key, d.storage_key);
}

/** The upload object once sealed (best effort: erasure removes whatever is left under the applicant's prefix). */
export async function dropUpload(store: ObjectStore, log: Logger, d: StoredDocument): Promise<void> {
  if (!d.upload_key) return;
  await store
    .delete(d.upload_key)
    .catch((err: unknown) => log.warn({ err, document_id: d.id }, 'upload object not deleted after sealing'));
}
