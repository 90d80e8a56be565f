import { useEffect, useState } from 'preact/hooks';
import type { EventType } from '../../../schemas/events.js';
import {
  createWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  rotateWebhookSecret,
  setWebhookEnabled,
  type WebhookDeliveryOut,
  type WebhookEndpointOut,
} from '../api';
import { fmtTime, shortId } from '../format';
import { href } from '../router';
import {
  Badge,
  Confirm,
  can,
  ErrorBox,
  FormToggle,
  issueAt,
  ListTable,
  Notice,
  PageHeader,
  TextField,
  useAction,
  useAsync,
  useFocusHeading,
  useSession,
} from '../ui';

/** The event catalogue (schemas/events.ts), checked both ways at compile time: none missing, none invented. */
const EVENTS = [
  'flow.created',
  'flow.completed',
  'flow.decided',
  'check.completed',
  'alert.created',
  'alert.updated',
  'batch.completed',
  'monitor.match',
  'applicant.erased',
  'dataset_version.promoted',
  'verification.started',
  'verification.submitted',
] as const satisfies readonly EventType[];
type MissingEvent = Exclude<EventType, (typeof EVENTS)[number]>;
const _allEvents: [MissingEvent] extends [never] ? true : MissingEvent = true;
void _allEvents;

/** A signing secret the API returns once (create, rotation): shown here until the operator dismisses it. */
function SecretOnce({ endpoint, onDone }: { endpoint: WebhookEndpointOut; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  if (!endpoint.signing_secret) return null;
  const secret = endpoint.signing_secret;
  return (
    <section class="card secret-box" aria-labelledby="h-secret" role="alert">
      <h2 id="h-secret">Signing secret of {endpoint.url}</h2>
      <p>
        Shown <strong>only now</strong>: store it where your receiver verifies the{' '}
        <code>Veriscreen-Signature</code> header. It cannot be read again (rotate it to get a new one).
      </p>
      <div class="secret-once">
        <code class="secret-value" data-signing-secret>
          {secret}
        </code>
        <button
          type="button"
          class="btn btn-small"
          onClick={() =>
            navigator.clipboard?.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="btn btn-small btn-primary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

function NewEndpoint({ onCreated }: { onCreated: (e: WebhookEndpointOut) => void }) {
  const [url, setUrl] = useState('https://');
  const [events, setEvents] = useState<string[]>([]);
  const { busy, error, run } = useAction();
  const urlIssue = issueAt(error, 'url');
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () =>
      onCreated(await createWebhook({ url: url.trim(), events: events as EventType[] })),
    );
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="h-new-endpoint">
      <h2 id="h-new-endpoint">New webhook endpoint</h2>
      <TextField
        id="wh-url"
        label="Endpoint URL"
        wide
        type="url"
        required
        value={url}
        onValue={setUrl}
        issue={urlIssue}
      />
      <fieldset class="checks-inline">
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label key={ev}>
            <input
              type="checkbox"
              checked={events.includes(ev)}
              onChange={(e) =>
                setEvents(e.currentTarget.checked ? [...events, ev] : events.filter((x) => x !== ev))
              }
            />
            {ev}
          </label>
        ))}
      </fieldset>
      <ErrorBox error={error} title="The endpoint was not created" />
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !events.length}>
          Create endpoint
        </button>
      </div>
    </form>
  );
}

function Deliveries({ endpoint, onNotice }: { endpoint: WebhookEndpointOut; onNotice: (t: string) => void }) {
  const session = useSession();
  const list = useAsync(() => listDeliveries(endpoint.id), [endpoint.id]);
  const { error, run } = useAction();
  const waiting = (list.data?.items ?? []).some((d) => d.status === 'pending');
  useEffect(() => {
    if (!waiting) return;
    const t = window.setInterval(list.reload, 2000);
    return () => window.clearInterval(t);
  }, [waiting, list.reload]);
  const again = (d: WebhookDeliveryOut) =>
    run(async () => {
      await redeliver(endpoint.id, d.id);
      onNotice(`Redelivery of ${d.event_type} queued`);
      list.reload();
    });
  const mayRedeliver = can(session, 'redeliverWebhook', 'POST');
  return (
    <section class="card" aria-labelledby="h-deliveries">
      <h2 id="h-deliveries">
        Delivery log of {endpoint.url}{' '}
        <button type="button" class="btn btn-small" onClick={list.reload}>
          Refresh
        </button>
      </h2>
      <ErrorBox error={error} title="Redelivery refused" />
      <ListTable
        list={list}
        empty="No deliveries yet."
        columns={['Event', 'Status', 'Attempts', 'Last answer', 'Next attempt', 'Created']}
        actions
        compact
        row={(d) => (
          <tr key={d.id} data-delivery-id={d.id} data-status={d.status}>
            <td>
              {d.event_type}
              <div class="muted small">
                <code>{shortId(d.event_id)}</code>
              </div>
            </td>
            <td>
              <Badge value={d.status} />
            </td>
            <td class="num">{d.attempts}</td>
            <td>{d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ?? '—')}</td>
            <td>{fmtTime(d.next_attempt_at)}</td>
            <td>{fmtTime(d.created_at)}</td>
            <td>
              {mayRedeliver && endpoint.enabled && (
                <button type="button" class="btn btn-small" onClick={() => again(d)}>
                  Redeliver
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

export function AdminWebhooks({ endpointId }: { endpointId: string | undefined }) {
  const session = useSession();
  const list = useAsync(listWebhooks, []);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<WebhookEndpointOut | null>(null);
  const [rotating, setRotating] = useState<WebhookEndpointOut | null>(null);
  const { busy, error, setError, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  useFocusHeading('webhooks');
  const current = list.data?.items.find((w) => w.id === endpointId);

  const rotate = async () => {
    if (!rotating) return;
    await run(async () => {
      setSecret(await rotateWebhookSecret(rotating.id));
      setRotating(null);
      setNotice('Rotated: the previous secret keeps signing beside the new one for 24 hours');
    });
  };
  const toggle = (w: WebhookEndpointOut) =>
    run(
      async () => {
        const next = await setWebhookEnabled(w.id, !w.enabled);
        setNotice(`${next.url} is ${next.enabled ? 'enabled' : 'disabled'}`);
        list.reload();
      },
      { busy: false },
    );

  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Webhook endpoints">
        {can(session, 'createWebhookEndpoint', 'POST') && (
          <FormToggle open={creating} label="New endpoint" onToggle={() => setCreating(!creating)} />
        )}
      </PageHeader>
      <Notice text={notice} onClose={() => setNotice(null)} />
      {secret && <SecretOnce endpoint={secret} onDone={() => setSecret(null)} />}
      {creating && (
        <NewEndpoint
          onCreated={(e) => {
            setCreating(false);
            setSecret(e);
            list.reload();
          }}
        />
      )}
      <ErrorBox error={error} title="The action was refused" />
      <ListTable
        list={list}
        empty="No webhook endpoints yet."
        columns={['URL', 'Events', 'State', 'Created']}
        actions
        row={(w) => (
          <tr key={w.id} data-endpoint-id={w.id} class={w.id === endpointId ? 'row-current' : ''}>
            <td class="break">{w.url}</td>
            <td class="codes">{w.events.join(', ')}</td>
            <td>
              <Badge value={w.enabled ? 'enabled' : 'disabled'} />
              {w.disabled_reason && <div class="error-text small">{w.disabled_reason}</div>}
            </td>
            <td>{fmtTime(w.created_at)}</td>
            <td class="row-actions">
              <a class="btn btn-small" href={href(`/admin/webhooks/${w.id}`)}>
                Delivery log
              </a>
              {can(session, 'rotateWebhookSecret', 'POST') && (
                <button
                  type="button"
                  class="btn btn-small"
                  onClick={() => {
                    setError(undefined);
                    setRotating(w);
                  }}
                >
                  Rotate secret
                </button>
              )}
              {can(session, 'updateWebhookEndpoint', 'PATCH') && (
                <button type="button" class="btn btn-small" onClick={() => toggle(w)}>
                  {w.enabled ? 'Disable' : 'Enable'}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {current && <Deliveries endpoint={current} onNotice={setNotice} />}
      <Confirm
        open={rotating !== null}
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        busy={busy}
        onConfirm={rotate}
        onCancel={() => setRotating(null)}
      >
        <p>
          A new secret signs every delivery to <strong>{rotating?.url}</strong> from now on. The current one
          keeps signing beside it (a second <code>v1=</code>) for 24 hours, so your receiver can switch over.
        </p>
      </Confirm>
    </section>
  );
}
