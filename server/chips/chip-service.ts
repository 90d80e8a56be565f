// Chip data of a flow's passport or ID card (docs/decisions/identity.md, "Chip verification"): a reader app submits
// EF.SOD and the data groups it read (base64 in JSON), optionally answering an Active Authentication challenge
// issued here. Only the envelopes are checked on the HTTP thread (tags and lengths: cheap); passive authentication
// runs on an identity thread (chip-verification.ts).
import { randomBytes } from 'node:crypto';
import { ChipFormatError, checkDataGroupEnvelope, readWhole } from '../../identity/chip/index.js';
import { CHIP_DOC_TYPES, type ChipSubmissionIn } from '../../schemas/chips.js';
import { actorOf, writeAudit } from '../audit/audit.js';
import type { Principal } from '../auth/principal.js';
import type { Bus } from '../bus/jetstream.js';
import { type Sql, transaction } from '../db/sql.js';
import { InvalidContent, NotFound, StateConflict, TooLarge } from '../domain-errors.js';

export interface ChipDeps {
  sql: Sql;
  bus: Bus;
  /** CHIP_MAX_BYTES: the decoded submission's cap */
  maxBytes: number;
}

/** How long an Active Authentication challenge stays valid. */
export const CHALLENGE_TTL_SECONDS = 300;

/** Decided flows: a review is a decision too, and the document check a reviewer reads was recorded before; chip
 * data arriving now would be stored and change nothing. */
const DECIDED = new Set(['APPROVED', 'REJECTED', 'FAILED', 'NEEDS_REVIEW']);

interface ChipTarget {
  applicant_id: string;
  doc_type: string;
  upload_status: string;
  flow_status: string;
  required_checks: string[] | null;
  passport_nfc_behavior: string | null;
}

/** The document, if its flow takes chip data now: a passport or ID card of an open flow whose template has the
 * document check and does not disable NFC. */
async function chipTarget(
  sql: Sql,
  tenantId: string,
  flowId: string,
  documentId: string,
): Promise<ChipTarget> {
  const [d] = await sql<ChipTarget[]>`
    select d.applicant_id, d.doc_type, d.upload_status, f.status as flow_status, t.required_checks,
           t.passport_nfc_behavior
    from documents d
    join flows f on f.id = d.flow_id and f.tenant_id = d.tenant_id
    join applicants a on a.id = d.applicant_id and a.tenant_id = d.tenant_id
    left join flow_templates t on t.id = f.flow_template_id
    where d.id = ${documentId} and d.flow_id = ${flowId} and d.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!d) throw new NotFound('Document');
  if (DECIDED.has(d.flow_status)) {
    throw new StateConflict('conflict', `The flow is ${d.flow_status}: it accepts no more chip data`, {
      status: d.flow_status,
    });
  }
  if (d.upload_status === 'rejected') {
    throw new StateConflict('document_state_conflict', 'The document was rejected', {
      upload_status: d.upload_status,
    });
  }
  const refuse = (message: string, reason: string) =>
    new InvalidContent('chip_not_accepted', message, { reason });
  if (d.passport_nfc_behavior === 'disabled') {
    throw refuse("The flow's template has passport_nfc_behavior: disabled", 'nfc_disabled');
  }
  if (!d.required_checks?.includes('document')) {
    throw refuse("The flow's template has no document check to verify a chip", 'no_document_check');
  }
  if (!CHIP_DOC_TYPES.has(d.doc_type)) {
    throw refuse(`A ${d.doc_type} has no ICAO chip (passport, id_card or id_document only)`, 'doc_type');
  }
  return d;
}

/** POST …/chip/challenges: a random 8-byte nonce for Active Authentication, single use, short-lived. */
export async function createChallenge(deps: ChipDeps, tenantId: string, flowId: string, documentId: string) {
  const d = await chipTarget(deps.sql, tenantId, flowId, documentId);
  const nonce = randomBytes(8);
  const [c] = await deps.sql<{ id: string; expires_at: Date }[]>`
    insert into chip_challenges (tenant_id, flow_id, document_id, applicant_id, nonce, expires_at)
    values (${tenantId}, ${flowId}, ${documentId}, ${d.applicant_id}, ${nonce},
            now() + make_interval(secs => ${CHALLENGE_TTL_SECONDS}))
    returning id, expires_at`;
  if (!c) throw new Error('challenge insert returned nothing');
  return {
    id: c.id,
    document_id: documentId,
    nonce: nonce.toString('hex'),
    expires_at: c.expires_at.toISOString(),
  };
}

type Files = Map<string, Buffer>;

/** The submission's bytes, each envelope checked (a clear 422 naming the field), the total capped. */
function decodeSubmission(body: ChipSubmissionIn, maxBytes: number): { files: Files; dataGroups: number[] } {
  const files: Files = new Map();
  const field = (name: string, b64: string, loc: (string | number)[], check: (b: Buffer) => void) => {
    const bytes = Buffer.from(b64, 'base64');
    try {
      check(bytes);
    } catch (err) {
      if (!(err instanceof ChipFormatError)) throw err;
      throw new InvalidContent('chip_data_invalid', err.message, { reason: err.code }, loc);
    }
    files.set(name, bytes);
  };
  field('sod', body.sod, ['body', 'sod'], (b) => readWhole(b, 0x77, 'EF.SOD'));
  for (const n of ['1', '2']) {
    if (!body.data_groups[n]) {
      throw new InvalidContent('chip_data_invalid', `DG${n} is required`, { reason: 'data_group_missing' }, [
        'body',
        'data_groups',
        n,
      ]);
    }
  }
  const dataGroups = Object.keys(body.data_groups)
    .map(Number)
    .sort((a, b) => a - b);
  for (const n of dataGroups) {
    field(`dg${n}`, body.data_groups[String(n)] as string, ['body', 'data_groups', String(n)], (b) =>
      checkDataGroupEnvelope(n, b),
    );
  }
  if (body.document_signer_certificate) {
    field(
      'document_signer',
      body.document_signer_certificate,
      ['body', 'document_signer_certificate'],
      () => {},
    );
  }
  if (body.active_authentication) {
    field(
      'aa_signature',
      body.active_authentication.signature,
      ['body', 'active_authentication', 'signature'],
      () => {},
    );
  }
  const total = [...files.values()].reduce((n, b) => n + b.length, 0);
  if (total > maxBytes) {
    throw new TooLarge(`The chip data is ${total} bytes; the limit is ${maxBytes}`, { max_bytes: maxBytes });
  }
  return { files, dataGroups };
}

export const chipJobId = (documentId: string) => `chip_verify:${documentId}`;

/** POST …/chip: stores the chip data (once per document) and queues its verification. */
export async function submitChip(
  deps: ChipDeps,
  principal: Principal,
  tenantId: string,
  flowId: string,
  documentId: string,
  body: ChipSubmissionIn,
  requestId: string,
) {
  const { files, dataGroups } = decodeSubmission(body, deps.maxBytes);
  const d = await chipTarget(deps.sql, tenantId, flowId, documentId);
  const aa = body.active_authentication;
  await transaction(deps.sql, async (tx) => {
    if (aa) {
      const [c] = await tx<{ nonce: Buffer }[]>`
        update chip_challenges set used_at = now()
        where id = ${aa.challenge_id} and tenant_id = ${tenantId} and document_id = ${documentId}
          and used_at is null and expires_at > now()
        returning nonce`;
      if (!c) throw new InvalidContent('chip_challenge_invalid');
      files.set('aa_challenge', c.nonce);
    }
    const inserted = await tx`
      insert into document_chips (document_id, tenant_id, flow_id, applicant_id, data_groups, active_authentication)
      values (${documentId}, ${tenantId}, ${flowId}, ${d.applicant_id}, ${dataGroups}, ${!!aa})
      on conflict (document_id) do nothing
      returning document_id`;
    if (!inserted.length) throw new StateConflict('chip_already_submitted');
    await tx`
      insert into document_chip_files ${tx(
        [...files].map(([name, bytes]) => ({
          document_id: documentId,
          tenant_id: tenantId,
          applicant_id: d.applicant_id,
          name,
          bytes,
        })),
      )}`;
    await writeAudit(tx, {
      tenant_id: tenantId,
      ...actorOf(principal),
      action: 'document.chip_submitted',
      resource_type: 'document',
      resource_id: documentId,
      request_id: requestId,
      details: { flow_id: flowId, data_groups: dataGroups, active_authentication: !!aa },
    });
    // published inside the transaction: a failed publish changes nothing; a job whose commit failed finds no chip
    await deps.bus.publishJob(
      'chip_verify',
      { document_id: documentId, tenant_id: tenantId },
      chipJobId(documentId),
    );
  });
  return {
    document_id: documentId,
    chip_status: 'pending' as const,
    data_groups: dataGroups,
    active_authentication: !!aa,
  };
}

/** A short-lived presigned GET of the chip portrait (JPEG), once the chip was checked and a portrait decoded. */
export async function chipPortraitKeyOf(sql: Sql, tenantId: string, flowId: string, documentId: string) {
  const [c] = await sql<{ portrait_key: string | null }[]>`
    select c.portrait_key from document_chips c
    join applicants a on a.id = c.applicant_id and a.tenant_id = c.tenant_id
    where c.document_id = ${documentId} and c.flow_id = ${flowId} and c.tenant_id = ${tenantId} and a.erased_at is null`;
  if (!c?.portrait_key) throw new NotFound('Chip portrait of this document');
  return c.portrait_key;
}
