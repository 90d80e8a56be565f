import type { ChipReport } from '../../identity/chip/index.js';
import type { DocumentReading, MrzFields } from '../../identity/document/index.js';
import type { HeadPose } from '../../identity/face/pose.js';
import type { Sql } from '../db/sql.js';
import { completeChallenge } from '../liveness/challenge-frames.js';

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
    /** head pose from human's face mesh (readings stored before it existed have none) */
    pose?: HeadPose | null;
  }[];
  face_count: number;
  /** the analysed image's size (face boxes are in these pixels) */
  image_width: number | null;
  image_height: number | null;
  error: string | null;
  /** embeddings by face index (only with biometric consent); never leave the server */
  embeddings: number[][];
  /** a frame of a liveness challenge: the challenge, the pose asked, and the challenge's poses and expiry */
  liveness_challenge_id: string | null;
  pose: string | null;
  challenge_poses: string[] | null;
  challenge_expires_at: Date | null;
  completed_at: Date | null;
}

/** The liveness challenge the selfie check judges: its frames in the order of its poses. */
export interface ChallengeInputs {
  id: string;
  poses: string[];
  expires_at: Date;
  frames: ReadUpload[];
}

export interface IdentityInputs {
  /** the identity document the checks use: the newest read one with an accepted reading, else with an MRZ or a
   * barcode, else the newest that is not a front, else the newest read one */
  document: ReadUpload | undefined;
  /** the front of a two-sided document whose data came from its back (its printed text, its portrait) */
  front?: ReadUpload | undefined;
  /** the upload whose face is the holder's portrait: the front of a two-sided document, else the document */
  portrait?: ReadUpload | undefined;
  /** the selfie: the `front` frame of the newest liveness challenge whose frames are all read, else the newest read
   * selfie that is no challenge frame */
  selfie: ReadUpload | undefined;
  /** that challenge, when the selfie is its front frame */
  challenge: ChallengeInputs | undefined;
  /** every read identity document of the flow (evidence) */
  documents: ReadUpload[];
  /** the checked chip of `document`, else the flow's newest checked chip */
  chip?: ChipUpload | undefined;
}

/** A submitted chip once the identity worker checked it (document_chips). */
export interface ChipUpload {
  document_id: string;
  /** null when the verification itself failed (error) */
  report: ChipReport | null;
  /** passive authentication passed (read, hashes, signature, chain) */
  verified: boolean;
  trust_store_version: number | null;
  portrait_key: string | null;
  face_count: number;
  error: string | null;
  /** the chip portrait's embeddings (only with biometric consent); never leave the server */
  embeddings: number[][];
  /** the MRZ read by OCR from the same document's printed page, when its image was read */
  printed: MrzFields | null;
}

/** The MRZ the flow's identity rests on: a verified chip's DG1 (issued by the state, unaltered), else none. */
export const verifiedChipMrz = (inputs: Pick<IdentityInputs, 'chip'>): MrzFields | null =>
  inputs.chip?.verified ? (inputs.chip.report?.dg1 ?? null) : null;

/** The flow's read uploads, with embeddings (server-side only). */
export async function identityInputs(sql: Sql, tenantId: string, flowId: string): Promise<IdentityInputs> {
  const rows = await sql<(Omit<ReadUpload, 'embeddings'> & { embeddings: number[][] | null })[]>`
    select d.id as document_id, d.doc_type, d.side, r.reading, r.faces, r.face_count, r.image_width, r.image_height, r.error,
      (select json_agg(e.embedding order by e.face_index) from face_embeddings e
       where e.document_id = d.id and e.source = 'image') as embeddings,
      d.liveness_challenge_id, d.pose, c.poses as challenge_poses, c.expires_at as challenge_expires_at, d.completed_at
    from documents d join document_readings r on r.document_id = d.id
    left join liveness_challenges c on c.id = d.liveness_challenge_id
    where d.tenant_id = ${tenantId} and d.flow_id = ${flowId} and d.upload_status = 'verified'
    order by d.seq desc`;
  const uploads: ReadUpload[] = rows.map((r) => ({ ...r, embeddings: r.embeddings ?? [] }));
  const documents = uploads.filter((u) => u.doc_type !== 'selfie');
  const document =
    documents.find((u) => u.reading?.accepted) ??
    documents.find((u) => u.reading?.mrz || u.reading?.barcode?.aamva) ??
    documents.find((u) => u.side !== 'front') ??
    documents[0];
  // two sides, one document: the data from the back, the portrait (and the printed text) from its front
  const front =
    document && document.side !== 'front'
      ? documents.find((u) => u.side === 'front' && u.doc_type === document.doc_type)
      : undefined;
  const challenge = challengeOf(uploads);
  const selfie =
    challenge?.frames[0] ?? uploads.find((u) => u.doc_type === 'selfie' && !u.liveness_challenge_id);
  const chips = await flowChips(sql, tenantId, flowId);
  const chip = chips.find((c) => c.document_id === document?.document_id) ?? chips[0];
  return { document, front, portrait: front ?? document, selfie, challenge, documents, chip };
}

/** The newest challenge with every frame read, its frames in pose order (`front` first). */
function challengeOf(uploads: ReadUpload[]): ChallengeInputs | undefined {
  const frames = completeChallenge(uploads);
  const first = frames && [...frames.values()][0];
  if (!frames || !first?.liveness_challenge_id || !first.challenge_poses || !first.challenge_expires_at)
    return;
  const poses = first.challenge_poses;
  return {
    id: first.liveness_challenge_id,
    poses,
    expires_at: first.challenge_expires_at,
    frames: poses.map((p) => frames.get(p) as ReadUpload),
  };
}

/** The flow's checked chips, newest first, each with the OCR reading of its own document. */
async function flowChips(sql: Sql, tenantId: string, flowId: string): Promise<ChipUpload[]> {
  const rows = await sql<
    (Omit<ChipUpload, 'embeddings' | 'printed' | 'verified'> & {
      verified: boolean | null;
      embeddings: number[][] | null;
      reading: DocumentReading | null;
    })[]
  >`
    select c.document_id, c.report, c.verified, c.trust_store_version, c.portrait_key, c.face_count, c.error,
      r.reading,
      (select json_agg(e.embedding order by e.face_index) from face_embeddings e
       where e.document_id = c.document_id and e.source = 'chip') as embeddings
    from document_chips c left join document_readings r on r.document_id = c.document_id
    where c.tenant_id = ${tenantId} and c.flow_id = ${flowId} and c.checked_at is not null
    order by c.submitted_at desc`;
  return rows.map(({ reading, ...c }) => ({
    ...c,
    verified: c.verified === true,
    face_count: c.face_count ?? 0,
    embeddings: c.embeddings ?? [],
    printed: reading?.mrz ?? null,
  }));
}
