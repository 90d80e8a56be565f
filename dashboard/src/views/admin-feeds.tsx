import { useState } from 'preact/hooks';
import { AdminTokenGate, refusedToken } from '../admin-token';
import { createFeed, type DatasetFeedOut, listFeeds, runFeed } from '../api';
import { fmtRelative, fmtTime, shortId } from '../format';
import {
  Badge,
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
} from '../ui';

/** Engine formats (ingest/index.ts READERS) offered as suggestions; the API names the known ones on a typo. */
const FORMAT_HINTS = [
  'ofac_sdn_csv',
  'ofac_cons_csv',
  'un_xml',
  'ftm_json',
  'senzing_json',
  'us_csl_csv',
  'uk_csv',
  'bis_dpl_tsv',
];

export function AdminFeeds() {
  useFocusHeading('feeds');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="List feeds" />
      <p class="muted">
        Sanctions and PEP lists fetched on a schedule: a new dataset version is built only when the list
        changed, refused when it shrank too much or did not parse, and promoted per the feed’s policy.
      </p>
      <AdminTokenGate purpose="List feeds">
        {(token, onRefused) => <Feeds token={token} onRefused={onRefused} />}
      </AdminTokenGate>
    </section>
  );
}

interface FeedForm {
  name: string;
  format: string;
  uri: string;
  interval_minutes: string;
  promote: 'auto' | 'manual';
  max_shrink_fraction: string;
}
const EMPTY: FeedForm = {
  name: '',
  format: '',
  uri: 'https://',
  interval_minutes: '720',
  promote: 'manual',
  max_shrink_fraction: '0.2',
};

function Feeds({ token, onRefused }: { token: string; onRefused: () => void }) {
  const refused = (e: unknown) => {
    if (refusedToken(e)) onRefused();
    throw e;
  };
  const list = useAsync(() => listFeeds(token).catch(refused), [token]);
  const [creating, setCreating] = useState(false);
  const [f, setF] = useState<FeedForm>(EMPTY);
  const { busy, error, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const set = <K extends keyof FeedForm>(k: K, v: FeedForm[K]) => setF({ ...f, [k]: v });
  const issueFor = (field: string) => issueAt(error, field);

  const onError = (e: unknown) => {
    if (refusedToken(e)) onRefused();
    return e;
  };
  const register = (e: Event) => {
    e.preventDefault();
    return run(
      async () => {
        const feed = await createFeed(token, {
          ...(f.name.trim() ? { name: f.name.trim() } : {}),
          format: f.format.trim(),
          uri: f.uri.trim(),
          interval_minutes: Number(f.interval_minutes),
          promote: f.promote,
          max_shrink_fraction: Number(f.max_shrink_fraction),
        });
        setNotice(`Registered “${feed.name}”: first fetch ${fmtRelative(feed.next_due_at)}`);
        setF(EMPTY);
        setCreating(false);
        list.reload();
      },
      { onError },
    );
  };
  const fetchNow = (feed: DatasetFeedOut) =>
    run(
      async () => {
        await runFeed(token, feed.id);
        setNotice(`“${feed.name}” is due now: the scheduler fetches it within moments`);
        list.reload();
      },
      { busy: false, onError },
    );

  const input = (
    id: 'name' | 'format' | 'interval_minutes' | 'max_shrink_fraction',
    label: string,
    props: Record<string, unknown> = {},
  ) => (
    <TextField
      id={`feed-${id}`}
      label={label}
      value={f[id]}
      onValue={(v) => set(id, v)}
      issue={issueFor(id)}
      {...props}
    />
  );

  return (
    <>
      <div class="row-actions">
        <FormToggle open={creating} label="Register a feed" onToggle={() => setCreating(!creating)} />
        <button type="button" class="btn" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <Notice text={notice} onClose={() => setNotice(null)} />
      {creating && (
        <form class="card stack" onSubmit={register} aria-labelledby="h-new-feed">
          <h2 id="h-new-feed">Register a list feed</h2>
          <div class="form-grid">
            {input('name', 'Name')}
            {input('format', 'Format', { list: 'feed-formats', required: true })}
            <datalist id="feed-formats">
              {FORMAT_HINTS.map((x) => (
                <option key={x} value={x} />
              ))}
            </datalist>
            <TextField
              id="feed-uri"
              label="Source URI (https://, s3:// or file://)"
              wide
              value={f.uri}
              required
              onValue={(v) => set('uri', v)}
              issue={issueFor('uri')}
            />
            {input('interval_minutes', 'Fetch every (minutes)', { type: 'number', min: 1, max: 10080 })}
            <div class="field">
              <label for="feed-promote">New versions</label>
              <select
                id="feed-promote"
                value={f.promote}
                onChange={(e) => set('promote', e.currentTarget.value as FeedForm['promote'])}
              >
                <option value="manual">wait for an admin to promote</option>
                <option value="auto">promote automatically when valid</option>
              </select>
            </div>
            {input('max_shrink_fraction', 'Refuse a list that shrank by more than (fraction)', {
              type: 'number',
              min: 0,
              max: 1,
              step: 0.01,
            })}
          </div>
          <ErrorBox error={error} title="The feed was not registered" />
          <div class="row-actions">
            <button type="submit" class="btn btn-primary" disabled={busy}>
              Register feed
            </button>
          </div>
        </form>
      )}
      {!creating && <ErrorBox error={error} title="The action was refused" />}
      <ListTable
        list={list}
        loading="Loading feeds…"
        empty="No feed is registered: lists are loaded only when an admin builds a version."
        columns={['Feed', 'Every', 'New versions', 'Last fetch', 'Outcome', 'Next due']}
        actions
        row={(feed) => (
          <tr key={feed.id} data-feed-id={feed.id} data-last-status={feed.last_status ?? ''}>
            <td>
              {feed.name}
              <div class="muted small break">
                <code>{feed.format}</code> {feed.uri}
              </div>
            </td>
            <td>{feed.interval_minutes} min</td>
            <td>
              {feed.promote === 'auto' ? 'promoted automatically' : 'wait for an admin'}
              <div class="muted small">
                refused if &gt;{Math.round(feed.max_shrink_fraction * 100)}% smaller
              </div>
            </td>
            <td title={fmtTime(feed.last_checked_at)}>{fmtRelative(feed.last_checked_at)}</td>
            <td>
              {feed.enabled ? (
                <Badge value={feed.last_status ?? 'not fetched yet'} kind={feed.last_status ?? 'none'} />
              ) : (
                <Badge value="disabled" />
              )}
              {feed.last_error && <div class="error-text small">{feed.last_error}</div>}
              {feed.last_version_id && (
                <div class="muted small">
                  version <code>{shortId(feed.last_version_id)}</code>
                </div>
              )}
            </td>
            <td title={fmtTime(feed.next_due_at)}>{feed.enabled ? fmtRelative(feed.next_due_at) : '—'}</td>
            <td>
              {feed.enabled && (
                <button type="button" class="btn btn-small" onClick={() => fetchNow(feed)}>
                  Fetch now
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </>
  );
}
