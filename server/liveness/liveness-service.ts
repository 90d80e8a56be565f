// Selfie liveness challenges (docs/journey.md, "Selfie liveness challenge"): a random sequence of head poses for one
// flow, a frame each (server/liveness/challenge-frames.ts), verified on the identity worker and judged by the selfie
// check's `liveness_challenge` sub-check (server/checks/types/liveness-challenge.ts).
import { randomBytes, randomInt } from 'node:crypto';
import { type ChallengePose, type LivenessChallengeOut, TURN_POSES } from '../../schemas/liveness.js';
import { newId } from '../db/ids.js';
import type { Sql } from '../db/sql.js';
import { openFlow } from '../documents/document-service.js';
import { ConsentRequired, StateConflict } from '../domain-errors.js';
import { invalid } from '../errors.js';

/** how long a challenge takes frames: a few poses are seconds of work, and a short life limits replays */
export const CHALLENGE_TTL_SECONDS = 300;
/** challenges one flow may have: retakes are new challenges, and drawing sequences until an easy one comes up is
 * bounded */
export const MAX_CHALLENGES_PER_FLOW = 10;
/** turns after `front`, each pose at most once (so a frame is named by its pose) */
const TURNS = 3;

/** `front`, then TURNS distinct turns in random order (a partial Fisher–Yates shuffle, crypto randomness). */
export function drawPoses(rand: (n: number) => number = randomInt): ChallengePose[] {
  const pool: ChallengePose[] = [...TURN_POSES];
  for (let i = 0; i < TURNS; i++) {
    const j = i + rand(pool.length - i);
    [pool[i], pool[j]] = [pool[j] as ChallengePose, pool[i] as ChallengePose];
  }
  return ['front', ...pool.slice(0, TURNS)];
}

/** Issues a challenge for a flow whose template has the selfie check and whose applicant gave biometric consent. */
export async function createChallenge(
  sql: Sql,
  tenantId: string,
  flowId: string,
): Promise<LivenessChallengeOut> {
  const flow = await openFlow(sql, tenantId, flowId);
  if (!flow.required_checks?.includes('selfie')) {
    throw invalid(
      ['path', 'flow_id'],
      "liveness challenges are for flows whose template has the 'selfie' check",
      'not_allowed',
    );
  }
  if (flow.consent?.biometric !== true) {
    throw new ConsentRequired(undefined, { field: 'applicant.consent.biometric' });
  }
  const [row] = await sql<{ id: string; poses: ChallengePose[]; nonce: string; expires_at: Date }[]>`
    insert into liveness_challenges (id, tenant_id, flow_id, nonce, poses, expires_at)
    select ${newId()}, ${tenantId}, ${flowId}, ${randomBytes(16).toString('base64url')}, ${drawPoses()},
           now() + make_interval(secs => ${CHALLENGE_TTL_SECONDS})
    where (select count(*) from liveness_challenges where tenant_id = ${tenantId} and flow_id = ${flowId})
          < ${MAX_CHALLENGES_PER_FLOW}
    returning id, poses, nonce, expires_at`;
  if (!row) {
    throw new StateConflict('liveness_challenge_limit', undefined, {
      max_challenges: MAX_CHALLENGES_PER_FLOW,
    });
  }
  return { id: row.id, nonce: row.nonce, poses: row.poses, expires_at: row.expires_at.toISOString() };
}
