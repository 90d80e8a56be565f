import { Type } from '@sinclair/typebox';
import {
  TrustStoreChangeOut,
  TrustStoreFileIn,
  TrustStoreListOut,
  TrustStoreListQuery,
  TrustStoreVersionsOut,
} from '../../schemas/chips.js';
import { ErrorEnvelope, Uuid, ValidationFailure } from '../../schemas/common.js';
import { ApiError } from '../errors.js';
import { route } from '../http/router.js';
import {
  addCrl,
  addCsca,
  listEntries,
  listVersions,
  loadMasterList,
  removeEntry,
  type TrustAnchors,
  type TrustStoreDeps,
} from './trust-store.js';

const E401 = { description: 'Missing or wrong X-Admin-Token', schema: ErrorEnvelope };
const E422 = {
  description: 'Not base64, too large, or not a valid file of this kind',
  schema: ValidationFailure,
};

/** Base64 grows bytes by 4/3; the body cap follows the decoded cap. */
export const base64Cap = (bytes: number) => Math.ceil(bytes / 3) * 4;

/** Decodes a base64 field, refusing one larger than `max` bytes once decoded. */
export function decodeBase64(b64: string, max: number, loc: (string | number)[]): Buffer {
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length > max) {
    throw new ApiError('payload_too_large', {
      message: `${loc.join('.')} is larger than ${max} bytes`,
      details: { max_bytes: max },
    });
  }
  return bytes;
}

/** The operator's trust store of CSCA certificates and CRLs (X-Admin-Token; deployment-wide). */
export function trustStoreRoutes(deps: TrustStoreDeps & { anchors: TrustAnchors; maxBytes: number }) {
  const cap = base64Cap(deps.maxBytes);
  const body = TrustStoreFileIn(cap);
  const upload = (
    path: string,
    operationId: string,
    summary: string,
    load: (bytes: Buffer) => Promise<unknown>,
  ) =>
    route({
      method: 'POST',
      path,
      operationId,
      summary,
      tag: 'admin',
      auth: 'admin',
      body,
      maxBodyBytes: cap + 1024,
      responses: {
        201: {
          description: 'Loaded: the new version (unchanged when every entry was held already)',
          schema: TrustStoreChangeOut,
        },
        401: E401,
        413: { description: 'Larger than TRUST_STORE_MAX_BYTES', schema: ErrorEnvelope },
        422: E422,
        503: { description: 'The trust pool is busy; retry', schema: ErrorEnvelope },
      },
      handler: async ({ body }) => ({
        status: 201,
        body: await load(decodeBase64(body.data, deps.maxBytes, ['body', 'data'])),
      }),
    });
  return [
    upload(
      '/admin/trust_store/master_lists',
      'loadCscaMasterList',
      'Load a CSCA master list (CMS, as published by ICAO or a state): its signature is verified, its CSCAs added',
      (b) => loadMasterList(deps, b, deps.anchors),
    ),
    upload('/admin/trust_store/cscas', 'addCsca', 'Add one CSCA certificate (DER or PEM)', (b) =>
      addCsca(deps, b),
    ),
    upload(
      '/admin/trust_store/crls',
      'addCscaCrl',
      'Add a CRL (DER or PEM) signed by a CSCA of the store: Document Signers it revokes are untrusted',
      (b) => addCrl(deps, b, deps.anchors),
    ),
    route({
      method: 'GET',
      path: '/admin/trust_store',
      operationId: 'listTrustStore',
      summary: 'The trust store (or an earlier version of it) by country, with each entry’s validity',
      tag: 'admin',
      auth: 'admin',
      query: TrustStoreListQuery,
      responses: { 200: { description: 'Entries', schema: TrustStoreListOut }, 401: E401, 422: E422 },
      handler: async ({ query }) => ({ status: 200, body: await listEntries(deps.sql, query) }),
    }),
    route({
      method: 'GET',
      path: '/admin/trust_store/versions',
      operationId: 'listTrustStoreVersions',
      summary: "The trust store's versions, newest first, with what each changed",
      tag: 'admin',
      auth: 'admin',
      responses: { 200: { description: 'Versions', schema: TrustStoreVersionsOut }, 401: E401 },
      handler: async () => ({ status: 200, body: await listVersions(deps.sql) }),
    }),
    route({
      method: 'DELETE',
      path: '/admin/trust_store/entries/{entry_id}',
      operationId: 'removeTrustStoreEntry',
      summary: 'Remove a CSCA or CRL from the store (a new version; earlier versions still list it)',
      tag: 'admin',
      auth: 'admin',
      params: Type.Object({ entry_id: Uuid }),
      responses: {
        200: { description: 'Removed: the new version', schema: TrustStoreChangeOut },
        401: E401,
        404: { description: 'No current entry with this id', schema: ErrorEnvelope },
      },
      handler: async ({ params }) => ({ status: 200, body: await removeEntry(deps, params.entry_id) }),
    }),
  ];
}
