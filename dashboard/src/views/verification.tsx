import { useState } from 'preact/hooks';
import {
  ApiFailure,
  createVerificationLink,
  type FlowOut,
  listVerificationLinks,
  revokeVerificationLink,
  type VerificationLink,
} from '../api';
import { fmtTime, humanize } from '../format';
import { Badge, Confirm, can, DataTable, ErrorBox, Loading, useAction, useAsync, useSession } from '../ui';

/**
 * On a flow: its verification links (docs/journey.md; minted and revoked by supervisors and admins, the URL shown
 * once, when minted: the token is stored hashed) and how each of its documents was captured.
 */

const EXPIRIES = [
  { label: '1 hour', seconds: 3600 },
  { label: '24 hours', seconds: 86_400 },
  { label: '7 days', seconds: 604_800 },
];
const LOCALES = [
  { label: "The applicant's browser", value: '' },
  { label: 'English', value: 'en' },
  { label: 'Spanish', value: 'es' },
  { label: 'Arabic', value: 'ar' },
];
const CAPTURE: Record<string, string> = {
  hosted_camera: 'Live camera (hosted page)',
  hosted_upload: 'File upload (hosted page)',
  api: 'API upload',
};

export function VerificationSection({ f }: { f: FlowOut }) {
  const session = useSession();
  if (!can(session, 'listVerificationLinks', 'GET')) return <CaptureTable f={f} />;
  return <Links f={f} />;
}

function Links({ f }: { f: FlowOut }) {
  const session = useSession();
  const links = useAsync(() => listVerificationLinks(f.id), [f.id]);
  const mayMint = can(session, 'createVerificationLink', 'POST');
  const mayRevoke = can(session, 'revokeVerificationLink', 'DELETE');
  // a service without the journey's routes (404 on the list): no links to show or mint
  if (links.error instanceof ApiFailure && links.error.status === 404) return <CaptureTable f={f} />;
  return (
    <>
      <section class="card" aria-labelledby="h-verification">
        <h2 id="h-verification">Verification links</h2>
        {mayMint && <MintLink flowId={f.id} onMinted={links.reload} />}
        {links.loading && !links.data ? (
          <Loading label="Loading links…" />
        ) : links.error ? (
          <ErrorBox error={links.error} />
        ) : (
          <LinkTable
            flowId={f.id}
            links={links.data?.items ?? []}
            mayRevoke={mayRevoke}
            onRevoked={links.reload}
          />
        )}
      </section>
      <CaptureTable f={f} />
    </>
  );
}

/** How each document of the flow was captured (hosted camera, hosted upload, API). */
function CaptureTable({ f }: { f: FlowOut }) {
  const docs = (f.documents ?? []) as {
    id: string;
    doc_type: string;
    side?: string;
    capture?: string | null;
  }[];
  if (!docs.length) return null;
  return (
    <section class="card" aria-labelledby="h-capture">
      <h2 id="h-capture">How the documents were captured</h2>
      <DataTable columns={['Document', 'Side', 'Captured by']}>
        {docs.map((d) => (
          <tr key={d.id} data-document-id={d.id}>
            <td>{humanize(d.doc_type)}</td>
            <td>{humanize(d.side ?? 'single')}</td>
            <td data-capture={d.capture ?? ''}>{d.capture ? (CAPTURE[d.capture] ?? d.capture) : '—'}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function MintLink({ flowId, onMinted }: { flowId: string; onMinted: () => void }) {
  const [expiresIn, setExpiresIn] = useState(86_400);
  const [locale, setLocale] = useState('');
  const [redirect, setRedirect] = useState('');
  const [minted, setMinted] = useState<VerificationLink | null>(null);
  const action = useAction();
  const mint = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      setMinted(
        await createVerificationLink(flowId, {
          expires_in: expiresIn,
          ...(locale ? { locale } : {}),
          ...(redirect.trim() ? { redirect_url: redirect.trim() } : {}),
        }),
      );
      onMinted();
    });
  };
  return (
    <form class="form-grid" onSubmit={mint} aria-label="New verification link">
      <div class="field">
        <label for="vl-expires">Valid for</label>
        <select
          id="vl-expires"
          value={expiresIn}
          onChange={(e) => setExpiresIn(Number(e.currentTarget.value))}
        >
          {EXPIRIES.map((x) => (
            <option key={x.seconds} value={x.seconds}>
              {x.label}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="vl-locale">Language</label>
        <select id="vl-locale" value={locale} onChange={(e) => setLocale(e.currentTarget.value)}>
          {LOCALES.map((x) => (
            <option key={x.value} value={x.value}>
              {x.label}
            </option>
          ))}
        </select>
      </div>
      <div class="field field-wide">
        <label for="vl-redirect">Return the applicant to (optional, an allowed origin)</label>
        <input
          id="vl-redirect"
          type="url"
          value={redirect}
          placeholder="https://app.example.com/onboarding/done"
          onInput={(e) => setRedirect(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Create link
        </button>
      </div>
      <ErrorBox error={action.error} title="The link was not created" />
      {minted?.url && (
        <div class="field field-wide" role="status">
          <label for="vl-url">New link (shown only now: send it to the applicant)</label>
          <input id="vl-url" readOnly value={minted.url} onFocus={(e) => e.currentTarget.select()} />
          <button
            type="button"
            class="btn btn-small"
            onClick={() => navigator.clipboard?.writeText(minted.url ?? '')}
          >
            Copy link
          </button>
        </div>
      )}
    </form>
  );
}

function LinkTable(props: {
  flowId: string;
  links: VerificationLink[];
  mayRevoke: boolean;
  onRevoked: () => void;
}) {
  const [revoking, setRevoking] = useState<VerificationLink | null>(null);
  const action = useAction();
  if (!props.links.length) return <p class="muted">No links yet.</p>;
  const revoke = () =>
    action.run(async () => {
      if (revoking) await revokeVerificationLink(props.flowId, revoking.id);
      setRevoking(null);
      props.onRevoked();
    });
  return (
    <>
      <ErrorBox error={action.error} title="The link was not revoked" />
      <DataTable
        columns={['Purpose', 'Status', 'Created', 'Expires', 'Used', 'Language']}
        actions={props.mayRevoke}
      >
        {props.links.map((l) => (
          <tr key={l.id} data-link-id={l.id}>
            <td>{humanize(l.purpose)}</td>
            <td>
              <Badge value={l.status} />
            </td>
            <td>{fmtTime(l.created_at)}</td>
            <td>{fmtTime(l.expires_at)}</td>
            <td>{l.used_at ? fmtTime(l.used_at) : '—'}</td>
            <td>{l.locale ?? '—'}</td>
            {props.mayRevoke && (
              <td>
                {l.status === 'active' && (
                  <button type="button" class="btn btn-small" onClick={() => setRevoking(l)}>
                    Revoke
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </DataTable>
      <Confirm
        open={revoking !== null}
        title="Revoke this link?"
        confirmLabel="Revoke"
        danger
        busy={action.busy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>The link stops working and every session opened with it ends. The flow stays open.</p>
      </Confirm>
    </>
  );
}
