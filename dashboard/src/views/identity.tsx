import {
  type ApplicantOut,
  type CheckOut,
  type FlowOut,
  getApplicant,
  previewChipPortrait,
  previewDocument,
} from '../api';
import { humanize } from '../format';
import { Badge, ReadableValue, useAsync } from '../ui';

// The identity part of a flow: the document image, what its MRZ says beside what the applicant gave (mismatches
// marked), the selfie beside the document portrait with the face-match score, and every sub-check of the document
// and selfie checks (server/checks/types/document.ts, selfie.ts).

interface SubCheck {
  name: string;
  passed: boolean | null;
  value: unknown;
  expected?: unknown;
  reason_code?: string;
}
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface Evidence {
  document_id?: string | null;
  selfie_document_id?: string | null;
  sub_checks?: SubCheck[];
  reading?: { mrz: Record<string, string | null> | null; accepted: boolean; lines: string[] } | null;
  faces?: { box: Box; score: number; liveness: number | null }[];
  image?: { width: number | null; height: number | null } | null;
  face_match_score?: number | null;
  face_match_threshold?: number;
  portrait_source?: 'chip' | 'document';
  /** the document's chip, as the document check recorded it */
  chip?: {
    document_id: string;
    verified: boolean;
    trust_store_version: number | null;
    error: string | null;
    portrait: { face_count: number } | null;
    signer?: { subject: string } | null;
    chain?: { failure: string | null } | null;
  } | null;
}

const latest = (f: FlowOut, type: string): CheckOut | undefined =>
  [...(f.checks ?? [])].reverse().find((c) => c.check_type === type);
const ev = (c: CheckOut | undefined) => (c?.evidence ?? {}) as Evidence;
const subOf = (c: CheckOut | undefined, name: string) => ev(c).sub_checks?.find((s) => s.name === name);

function Mark({ s }: { s: SubCheck | undefined }) {
  if (!s || s.passed === null) return <span class="muted">—</span>;
  return s.passed ? <span class="ok">✓ consistent</span> : <span class="mismatch">✗ mismatch</span>;
}

function usePreview(flowId: string, documentId: string | null | undefined) {
  return useAsync(
    () =>
      documentId ? previewDocument(flowId, documentId).catch(() => undefined) : Promise.resolve(undefined),
    [flowId, documentId],
  );
}

/** The face box of an image, cut out by CSS (no canvas: the image comes from another origin). */
function FaceCrop({
  url,
  box,
  image,
  label,
}: {
  url: string;
  box: Box;
  image: { width: number; height: number };
  label: string;
}) {
  const h = 180;
  const scale = h / box.height;
  return (
    <div class="face-crop" style={{ width: `${Math.round(box.width * scale)}px`, height: `${h}px` }}>
      <img
        src={url}
        alt={label}
        style={{
          width: `${Math.round(image.width * scale)}px`,
          height: `${Math.round(image.height * scale)}px`,
          left: `${Math.round(-box.x * scale)}px`,
          top: `${Math.round(-box.y * scale)}px`,
        }}
      />
    </div>
  );
}

const largest = (faces: Evidence['faces']) =>
  (faces ?? []).reduce<Box | undefined>(
    (b, f) => (!b || f.box.width * f.box.height > b.width * b.height ? f.box : b),
    undefined,
  );

function SubChecks({ c }: { c: CheckOut }) {
  const subs = ev(c).sub_checks ?? [];
  return (
    <div class="table-wrap">
      <table class="table sub-checks" aria-label={`${humanize(c.check_type)} sub-checks`}>
        <thead>
          <tr>
            <th scope="col">{humanize(c.check_type)} sub-check</th>
            <th scope="col">Result</th>
            <th scope="col">Value</th>
            <th scope="col">Reason code</th>
          </tr>
        </thead>
        <tbody>
          {subs.map((s) => (
            <tr key={s.name} data-sub-check={s.name}>
              <td>{humanize(s.name)}</td>
              <td>
                {s.passed === null ? (
                  <span class="muted">not evaluated</span>
                ) : (
                  <Badge value={s.passed ? 'passed' : 'failed'} />
                )}
              </td>
              <td class="small" data-sub-check-value>
                <ReadableValue value={s.value} />
                {s.expected !== undefined && (
                  <div class="muted">
                    expected <ReadableValue value={s.expected} />
                  </div>
                )}
              </td>
              <td class="codes">{s.passed === false ? (s.reason_code ?? '') : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function IdentitySection({ f }: { f: FlowOut }) {
  const docCheck = latest(f, 'document');
  const selfieCheck = latest(f, 'selfie');
  const docEv = ev(docCheck);
  const selfieEv = ev(selfieCheck);
  const identityDocs = (f.documents ?? []) as { id: string; doc_type: string; upload_status: string }[];
  const docId =
    docEv.document_id ??
    identityDocs.find((d) => d.doc_type !== 'selfie' && d.upload_status === 'verified')?.id;
  const selfieId =
    selfieEv.selfie_document_id ??
    identityDocs.find((d) => d.doc_type === 'selfie' && d.upload_status === 'verified')?.id;
  const docPreview = usePreview(f.id, docId);
  const chip = docEv.chip ?? null;
  const chipPortrait = useAsync(
    () =>
      chip?.portrait
        ? previewChipPortrait(f.id, chip.document_id).catch(() => undefined)
        : Promise.resolve(undefined),
    [f.id, chip?.document_id, !!chip?.portrait],
  );
  const selfiePreview = usePreview(f.id, selfieId);
  const applicant = useAsync<ApplicantOut | undefined>(
    () => getApplicant(f.applicant_id).catch(() => undefined),
    [f.applicant_id],
  );
  if (!docCheck && !selfieCheck && !identityDocs.length) return null;
  const mrz = docEv.reading?.mrz ?? null;
  const a = applicant.data;
  const docImage =
    docEv.image?.width && docEv.image.height
      ? { width: docEv.image.width, height: docEv.image.height }
      : undefined;
  const selfieImage =
    selfieEv.image?.width && selfieEv.image.height
      ? { width: selfieEv.image.width, height: selfieEv.image.height }
      : undefined;
  const portrait = largest(docEv.faces);
  const selfieFace = largest(selfieEv.faces);
  const score = selfieEv.face_match_score;
  return (
    <section class="card identity" aria-labelledby="h-identity">
      <h2 id="h-identity">Identity document and selfie</h2>
      <div class="grid-2">
        <div>
          <h3>Document</h3>
          {docPreview.data ? (
            <img class="doc-image" src={docPreview.data.url} alt="Identity document as uploaded" />
          ) : (
            <p class="muted">{docId ? 'Loading the document image…' : 'No document uploaded yet.'}</p>
          )}
          {docEv.reading?.lines?.length ? (
            <pre class="mrz" title="MRZ as read">
              {docEv.reading.lines.join('\n')}
            </pre>
          ) : null}
          {chip ? <ChipResult chip={chip} /> : null}
        </div>
        <div>
          <h3>Extracted fields beside the applicant's data</h3>
          <ExtractedFields mrz={mrz} applicant={a} docCheck={docCheck} />
        </div>
      </div>
      {selfieCheck || selfieId ? (
        <div class="face-compare">
          <h3>Selfie and document portrait</h3>
          <div class="faces">
            <figure>
              {selfiePreview.data && selfieFace && selfieImage ? (
                <FaceCrop
                  url={selfiePreview.data.url}
                  box={selfieFace}
                  image={selfieImage}
                  label="Selfie face"
                />
              ) : selfiePreview.data ? (
                <img class="selfie" src={selfiePreview.data.url} alt="Selfie" />
              ) : (
                <p class="muted">No selfie image.</p>
              )}
              <figcaption>Selfie</figcaption>
            </figure>
            <figure>
              {docPreview.data && portrait && docImage ? (
                <FaceCrop
                  url={docPreview.data.url}
                  box={portrait}
                  image={docImage}
                  label="Document portrait"
                />
              ) : (
                <p class="muted">No portrait found on the document.</p>
              )}
              <figcaption>Document portrait</figcaption>
            </figure>
            {chip?.portrait ? (
              <figure>
                {chipPortrait.data ? (
                  <img class="selfie" src={chipPortrait.data.url} alt="Chip portrait" />
                ) : (
                  <p class="muted">Loading the chip portrait…</p>
                )}
                <figcaption>
                  Chip portrait{selfieEv.portrait_source === 'chip' ? ' (matched against the selfie)' : ''}
                </figcaption>
              </figure>
            ) : null}
            <p class="score" data-face-match-score={score ?? ''}>
              Face match: <strong>{score === null || score === undefined ? '—' : score.toFixed(3)}</strong>
              <span class="muted"> (threshold {selfieEv.face_match_threshold ?? '—'})</span>{' '}
              <Mark s={subOf(selfieCheck, 'face_match')} />
            </p>
          </div>
        </div>
      ) : null}
      {docCheck && <SubChecks c={docCheck} />}
      {selfieCheck && <SubChecks c={selfieCheck} />}
    </section>
  );
}

/** What the document's MRZ says beside what the applicant gave, each pair marked by its sub-check. */
function ExtractedFields(props: {
  mrz: Record<string, string | null> | null;
  applicant: ApplicantOut | undefined;
  docCheck: CheckOut | undefined;
}) {
  const { mrz, applicant: a, docCheck } = props;
  const applicantName = a
    ? [a.legal_name_first, a.legal_name_middle, a.legal_name_last].filter(Boolean).join(' ')
    : '—';
  return (
    <table class="table extracted" aria-label="Extracted fields">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Document (MRZ)</th>
          <th scope="col">Applicant</th>
          <th scope="col">Consistent</th>
        </tr>
      </thead>
      <tbody>
        <tr data-field="name">
          <td>Name</td>
          <td>{mrz ? `${mrz.given_names ?? ''} ${mrz.surname ?? ''}`.trim() : '—'}</td>
          <td>{applicantName || '—'}</td>
          <td>
            <Mark s={subOf(docCheck, 'name_matches_applicant')} />
          </td>
        </tr>
        <tr data-field="dob">
          <td>Date of birth</td>
          <td>{mrz?.birth_date ?? '—'}</td>
          <td>{a?.dob ?? '—'}</td>
          <td>
            <Mark s={subOf(docCheck, 'dob_matches_applicant')} />
          </td>
        </tr>
        <tr>
          <td>Nationality</td>
          <td>{mrz?.nationality ?? '—'}</td>
          <td>{a?.nationality ?? '—'}</td>
          <td>
            <span class="muted">—</span>
          </td>
        </tr>
        <tr>
          <td>Document</td>
          <td>{mrz ? `${mrz.document_type} ${mrz.issuing_country} ${mrz.document_number}` : '—'}</td>
          <td>—</td>
          <td>
            <Mark s={subOf(docCheck, 'document_type_allowed')} />
          </td>
        </tr>
        <tr data-field="expiry">
          <td>Expiry</td>
          <td>{mrz?.expiry_date ?? '—'}</td>
          <td>—</td>
          <td>
            <Mark s={subOf(docCheck, 'not_expired')} />
          </td>
        </tr>
        <tr>
          <td>Sex</td>
          <td>{mrz?.sex ?? '—'}</td>
          <td>—</td>
          <td>
            <span class="muted">—</span>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** The chip's verdict: passive authentication, who signed it, which trust-store version vouched for it. */
function ChipResult({ chip }: { chip: NonNullable<Evidence['chip']> }) {
  const state = chip.verified ? 'verified' : chip.error ? 'unreadable' : 'not verified';
  return (
    <p class="chip-result" data-chip-verified={String(chip.verified)}>
      <strong>Chip: </strong>
      <span class={chip.verified ? 'ok' : 'mismatch'}>
        {chip.verified ? '✓' : '✗'} {state}
      </span>
      {chip.signer ? <span class="muted"> — signed by {chip.signer.subject}</span> : null}
      {chip.chain?.failure ? <span class="muted"> ({humanize(chip.chain.failure)})</span> : null}
      {chip.trust_store_version ? (
        <span class="muted">, trust store version {chip.trust_store_version}</span>
      ) : null}
    </p>
  );
}
