import type { DocumentReading } from '../../identity/document/index.js';
import type { Sql } from '../db/sql.js';

/** A read upload as the identity checks see it (document_readings + the document row). */
export interface ReadUpload {
  document_id: string;
  doc_type: string;
  side: string;
  reading: DocumentReading | null;
  faces: {
    box: { x: number; y: number; width: number; height: number };
    score: number;
    liveness: number | null;
  }[];
  face_count: number;
  /** the analysed image's size (face boxes are in these pixels) */
  image_width: number | null;
  image_height: number | null;
  error: string | null;
  /** embeddings by face index (only with biometric consent); never leave the server */
  embeddings: number[][];
}

export interface IdentityInputs {
  /** the identity document the checks use: the newest read one with an accepted reading, else with an MRZ, else
   * the newest read one */
  document: ReadUpload | undefined;
  /** the newest read selfie */
  selfie: ReadUpload | undefined;
  /** every read identity document of the flow (evidence) */
  documents: ReadUpload[];
}

/** The flow's read uploads, with embeddings (server-side only). */
export async function identityInputs(sql: Sql, tenantId: string, flowId: string): Promise<IdentityInputs> {
  const rows = await sql<(Omit<ReadUpload, 'embeddings'> & { embeddings: number[][] | null })[]>`
    select d.id as document_id, d.doc_type, d.side, r.reading, r.faces, r.face_count, r.image_width, r.image_height, r.error,
      (select json_agg(e.embedding order by e.face_index) from face_embeddings e where e.document_id = d.id)
        as embeddings
    from documents d join document_readings r on r.document_id = d.id
    where d.tenant_id = ${tenantId} and d.flow_id = ${flowId} and d.upload_status = 'verified'
    order by d.seq desc`;
  const uploads: ReadUpload[] = rows.map((r) => ({ ...r, embeddings: r.embeddings ?? [] }));
  const documents = uploads.filter((u) => u.doc_type !== 'selfie');
  const document =
    documents.find((u) => u.reading?.accepted) ?? documents.find((u) => u.reading?.mrz) ?? documents[0];
  return { document, selfie: uploads.find((u) => u.doc_type === 'selfie'), documents };
}
