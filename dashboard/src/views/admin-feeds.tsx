import { useState } from 'preact/hooks';
import { AdminTokenGate, refusedToken } from '../admin-token';
import { createFeed, type DatasetFeedOut, deleteFeed, listFeeds, patchFeed, runFeed } from '../api';
import { fmtRelative, fmtTime, shortId } from '../format';
import {
  Badge,
  Confirm,
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
const formOf = (feed: DatasetFeedOut): FeedForm => ({
  name: feed.name,
  format: feed.format,
  uri: feed.uri,
  interval_minutes: String(feed.interval_minutes),
  promote: feed.promote,
  max_shrink_fraction: String(feed.max_shrink_fraction),
});

/** One feed: where it is fetched from, how often, what its last fetch gave, and what can be done with it. */
function FeedRow(props: {
  feed: DatasetFeedOut;
  onFetch: () => void;
  onEdit: () => void;
  onEnabled: (enabled: boolean) => void;
  onDelete: () => void;
}) {
  const { feed, onFetch, onEdit, onEnabled, onDelete } = props;
  return (
    <tr data-feed-id={feed.id} data-last-status={feed.last_status ?? ''}>
      <td>
        {feed.name}
        <div class="muted small break">
          <code>{feed.format}</code> {feed.uri}
        </div>
      </td>
      <td>{feed.interval_minutes} min</td>
      <td>
        {feed.promote === 'auto' ? 'promoted automatically' : 'wait for an admin'}
        <div class="muted small">refused if &gt;{Math.round(feed.max_shrink_fraction * 100)}% smaller</div>
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
        <div class="cell-actions">
          {feed.enabled && (
            <button type="button" class="btn btn-small" onClick={onFetch}>
              Fetch now
            </button>
          )}
          <button type="button" class="btn btn-small" onClick={onEdit}>
            Edit
          </button>
          <button type="button" class="btn btn-small" onClick={() => onEnabled(!feed.enabled)}>
            {feed.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" class="btn btn-small btn-danger" onClick={onDelete}>
            Delete
          </button>
        </div>
      </td>
    </tr>
  );
}

/** The form that registers a feed, or edits the settings of one (its format is fixed once registered). */
function FeedFormCard(props: {
  f: FeedForm;
  set: <K extends keyof FeedForm>(k: K, v: FeedForm[K]) => void;
  editing: DatasetFeedOut | null;
  busy: boolean;
  error: unknown;
  onSubmit: (e: Event) => void;
}) {
  const { f, set, editing, busy, error } = props;
  const issueFor = (field: string) => issueAt(error, field);
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
    <form class="card stack" onSubmit={props.onSubmit} aria-labelledby="h-new-feed">
      <h2 id="h-new-feed">{editing ? `Settings of “${editing.name}”` : 'Register a list feed'}</h2>
      <div class="form-grid">
        {input('name', 'Name')}
        {input('format', 'Format', { list: 'feed-formats', required: true, disabled: editing !== null })}
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
      <ErrorBox error={error} title={editing ? 'The feed was not saved' : 'The feed was not registered'} />
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {editing ? 'Save feed' : 'Register feed'}
        </button>
      </div>
    </form>
  );
}

function Feeds({ token, onRefused }: { token: string; onRefused: () => void }) {
  const refused = (e: unknown) => {
    if (refusedToken(e)) onRefused();
    throw e;
  };
  const list = useAsync(() => listFeeds(token).catch(refused), [token]);
  const [creating, setCreating] = useState(false);
  /** the feed whose settings the form edits (the form registers a new feed otherwise) */
  const [editing, setEditing] = useState<DatasetFeedOut | null>(null);
  const [deleting, setDeleting] = useState<DatasetFeedOut | null>(null);
  const [f, setF] = useState<FeedForm>(EMPTY);
  const { busy, error, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const set = <K extends keyof FeedForm>(k: K, v: FeedForm[K]) => setF({ ...f, [k]: v });

  const onError = (e: unknown) => {
    if (refusedToken(e)) onRefused();
    return e;
  };
  const closeForm = () => {
    setF(EMPTY);
    setCreating(false);
    setEditing(null);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const settings = {
      uri: f.uri.trim(),
      interval_minutes: Number(f.interval_minutes),
      promote: f.promote,
      max_shrink_fraction: Number(f.max_shrink_fraction),
    };
    return run(
      async () => {
        if (editing) {
          const feed = await patchFeed(token, editing.id, { name: f.name.trim(), ...settings });
          setNotice(`Saved “${feed.name}”: next fetch ${fmtRelative(feed.next_due_at)}`);
        } else {
          const feed = await createFeed(token, {
            ...(f.name.trim() ? { name: f.name.trim() } : {}),
            format: f.format.trim(),
            ...settings,
          });
          setNotice(`Registered “${feed.name}”: first fetch ${fmtRelative(feed.next_due_at)}`);
        }
        closeForm();
        list.reload();
      },
      { onError },
    );
  };
  const setEnabled = (feed: DatasetFeedOut, enabled: boolean) =>
    run(
      async () => {
        await patchFeed(token, feed.id, { enabled });
        setNotice(enabled ? `“${feed.name}” is fetched again` : `“${feed.name}” is no longer fetched`);
        list.reload();
      },
      { busy: false, onError },
    );
  const remove = (feed: DatasetFeedOut) =>
    run(
      async () => {
        await deleteFeed(token, feed.id);
        setNotice(`Deleted “${feed.name}” (the versions it built stay)`);
        setDeleting(null);
        list.reload();
      },
      { onError },
    );
  const fetchNow = (feed: DatasetFeedOut) =>
    run(
      async () => {
        await runFeed(token, feed.id);
        setNotice(`“${feed.name}” is due now: the scheduler fetches it within moments`);
        list.reload();
      },
      { busy: false, onError },
    );

  return (
    <>
      <div class="row-actions">
        <FormToggle
          open={creating || editing !== null}
          label="Register a feed"
          onToggle={() => (creating || editing ? closeForm() : setCreating(true))}
        />
        <button type="button" class="btn" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <Notice text={notice} onClose={() => setNotice(null)} />
      {(creating || editing) && (
        <FeedFormCard f={f} set={set} editing={editing} busy={busy} error={error} onSubmit={submit} />
      )}
      {!creating && !editing && !deleting && <ErrorBox error={error} title="The action was refused" />}
      <ListTable
        list={list}
        loading="Loading feeds…"
        empty="No feed is registered: lists are loaded only when an admin builds a version."
        columns={['Feed', 'Every', 'New versions', 'Last fetch', 'Outcome', 'Next due']}
        actions
        row={(feed) => (
          <FeedRow
            key={feed.id}
            feed={feed}
            onFetch={() => fetchNow(feed)}
            onEdit={() => {
              setCreating(false);
              setEditing(feed);
              setF(formOf(feed));
            }}
            onEnabled={(enabled) => setEnabled(feed, enabled)}
            onDelete={() => setDeleting(feed)}
          />
        )}
      />
      <Confirm
        open={deleting !== null}
        title={`Delete the feed “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete feed"
        danger
        busy={busy}
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>
          The list is no longer fetched from <code>{deleting?.uri}</code>. The dataset versions it built stay,
          and the active one keeps answering.
        </p>
        {deleting && <ErrorBox error={error} title="The feed was not deleted" />}
      </Confirm>
    </>
  );
}
