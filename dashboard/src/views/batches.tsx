import { useEffect, useState } from 'preact/hooks';
import type { MonitorCreateIn } from '../../../schemas/monitors.js';
import {
  createMonitor,
  deleteMonitor,
  listBatches,
  listMonitors,
  type MonitorOut,
  pauseMonitor,
  resumeMonitor,
} from '../api';
import { normalizeDob } from '../batch-mapping';
import { fmtNumber, fmtRelative, fmtTime, shortId } from '../format';
import { href } from '../router';
import {
  Badge,
  Confirm,
  can,
  ErrorBox,
  FilterSelect,
  FormToggle,
  issueAt,
  ListTable,
  Notice,
  PageHeader,
  Pager,
  TextField,
  useAction,
  useAsync,
  useFocusHeading,
  useSession,
} from '../ui';

/** Re-polls every few seconds while `active` (e.g. a batch is still processing). */
function usePoll(active: boolean, reload: () => void, ms = 4000): void {
  useEffect(() => {
    if (!active) return;
    const t = window.setInterval(reload, ms);
    return () => window.clearInterval(t);
  }, [active, reload, ms]);
}

function Progress({ done, errors, total }: { done: number; errors: number; total: number }) {
  const pct = total ? Math.round(((done + errors) / total) * 100) : 0;
  return (
    <div class="progress-cell">
      <progress max={total || 1} value={done + errors} aria-label={`${pct}% screened`} />
      <span class="small">
        {fmtNumber(done)} / {fmtNumber(total)}
        {errors ? <span class="error-text"> · {fmtNumber(errors)} errors</span> : null}
      </span>
    </div>
  );
}

export function Batches() {
  const session = useSession();
  const [status, setStatus] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const list = useAsync(
    () => listBatches({ ...(status ? { status } : {}), ...(cursor ? { after: cursor } : {}) }),
    [status, cursor],
  );
  const running = (list.data?.items ?? []).some((b) => b.status === 'queued' || b.status === 'processing');
  usePoll(running, list.reload);
  useFocusHeading('batches');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Check batches">
        {running && <span class="muted">Updating every 4 s…</span>}
        {can(session, 'createCheckBatch', 'POST') && (
          <a class="btn btn-primary" href={href('/batches/new')}>
            Upload a CSV
          </a>
        )}
      </PageHeader>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter batches">
        <FilterSelect
          label="Status"
          value={status}
          any="Any"
          options={['queued', 'processing', 'completed', 'failed']}
          onValue={(v) => {
            setStatus(v);
            setCursor(undefined);
          }}
        />
        <button type="button" class="btn" onClick={list.reload}>
          Refresh
        </button>
      </form>
      <ListTable
        list={list}
        loading="Loading batches…"
        empty="No batches yet: upload a customer CSV, or submit one through POST /v1/check_batches."
        columns={['Batch', 'Status', 'Progress', 'Use case', 'Datasets', 'Created', 'Completed']}
        row={(b) => (
          <tr key={b.id}>
            <td>
              <a href={href(`/batches/${b.id}`)}>
                <code>{shortId(b.id)}</code>
              </a>
            </td>
            <td>
              <Badge value={b.status} />
              {b.error && <div class="error-text small">{b.error}</div>}
            </td>
            <td>
              <Progress done={b.completed_count} errors={b.error_count} total={b.subject_count} />
            </td>
            <td>{b.use_case}</td>
            <td>{b.datasets.join(', ')}</td>
            <td>{fmtTime(b.created_at)}</td>
            <td>{fmtTime(b.completed_at)}</td>
          </tr>
        )}
      />
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
    </section>
  );
}

const SUBJECT_TYPES = ['person', 'company', 'organization', 'vessel', 'aircraft'] as const;

interface MonitorForm {
  name: string;
  type: (typeof SUBJECT_TYPES)[number];
  date_of_birth: string;
  nationality: string;
  country: string;
  external_id: string;
  interval_hours: string;
  run_immediately: boolean;
}
const EMPTY_MONITOR: MonitorForm = {
  name: '',
  type: 'person',
  date_of_birth: '',
  nationality: '',
  country: '',
  external_id: '',
  interval_hours: '24',
  run_immediately: true,
};

/** The new-monitor form: one subject, screened now (or at the first due time) and then every interval. */
function NewMonitor({ onCreated }: { onCreated: (m: MonitorOut) => void }) {
  const [f, setF] = useState<MonitorForm>(EMPTY_MONITOR);
  const { busy, error, run } = useAction();
  const set = <K extends keyof MonitorForm>(k: K, v: MonitorForm[K]) => setF({ ...f, [k]: v });
  const issueFor = (field: string) => issueAt(error, field);
  const submit = async (e: Event) => {
    e.preventDefault();
    const dob = f.date_of_birth.trim();
    const subject: MonitorCreateIn['subjects'][number] = { name: f.name.trim(), type: f.type };
    if (dob) subject.date_of_birth = normalizeDob(dob) ?? dob; // the API names a malformed date
    if (f.nationality.trim()) subject.nationality = f.nationality.trim().toUpperCase();
    if (f.country.trim()) subject.country = f.country.trim().toUpperCase();
    const body: MonitorCreateIn = {
      subjects: [subject],
      interval_hours: Number(f.interval_hours),
      run_immediately: f.run_immediately,
      ...(f.external_id.trim() ? { external_id: f.external_id.trim() } : {}),
    };
    await run(async () => {
      const m = await createMonitor(body);
      setF(EMPTY_MONITOR);
      onCreated(m);
    });
  };
  const field = (
    id: 'name' | 'date_of_birth' | 'nationality' | 'country' | 'external_id' | 'interval_hours',
    label: string,
    apiField: string,
    props: Record<string, unknown> = {},
  ) => (
    <TextField
      id={`mon-${id}`}
      label={label}
      value={f[id]}
      onValue={(v) => set(id, v)}
      issue={issueFor(apiField)}
      {...props}
    />
  );
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="h-new-monitor">
      <h2 id="h-new-monitor">New monitor</h2>
      <div class="form-grid">
        {field('name', 'Name to monitor', 'name', { required: true, maxLength: 500 })}
        <div class="field">
          <label for="mon-type">Type</label>
          <select
            id="mon-type"
            value={f.type}
            onChange={(e) => set('type', e.currentTarget.value as MonitorForm['type'])}
          >
            {SUBJECT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        {field('date_of_birth', 'Date of birth (YYYY-MM-DD)', 'date_of_birth')}
        {field('nationality', 'Nationality (ISO alpha-2)', 'nationality', { maxLength: 2 })}
        {field('country', 'Country (ISO alpha-2)', 'country', { maxLength: 2 })}
        {field('external_id', 'Customer reference', 'external_id')}
        {field('interval_hours', 'Rescreen every (hours)', 'interval_hours', {
          type: 'number',
          min: 1,
          max: 2160,
        })}
      </div>
      <label class="inline">
        <input
          type="checkbox"
          checked={f.run_immediately}
          onChange={(e) => set('run_immediately', e.currentTarget.checked)}
        />
        Screen now (otherwise at the first interval)
      </label>
      <ErrorBox error={error} title="The monitor was not created" />
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !f.name.trim()}>
          Create monitor
        </button>
      </div>
    </form>
  );
}

const subjectOf = (m: MonitorOut) => m.subjects.map((s) => s.name).join(', ') || shortId(m.id);

/** One monitor: whom it screens, how it stands, when it ran and runs next, and what the operator may do. */
function MonitorRow(props: {
  m: MonitorOut;
  mayPause: boolean;
  mayDelete: boolean;
  onToggle: () => void;
  onDelete: () => void;
}) {
  const { m, mayPause, mayDelete, onToggle, onDelete } = props;
  return (
    <tr data-monitor-id={m.id}>
      <td>
        {subjectOf(m)}
        <div class="muted small">
          {m.external_id ?? ''}{' '}
          {m.applicant_id && <a href={href(`/applicants/${m.applicant_id}`)}>applicant</a>}
        </div>
      </td>
      <td>
        <Badge value={m.status} />
        {m.failure_reason && <div class="error-text small">{m.failure_reason}</div>}
      </td>
      <td title={fmtTime(m.last_checked_at)}>{fmtRelative(m.last_checked_at)}</td>
      <td>
        <code>{shortId(m.last_dataset_partition)}</code>
      </td>
      <td title={fmtTime(m.next_due_at)}>{m.status === 'active' ? fmtRelative(m.next_due_at) : '—'}</td>
      <td>{m.interval_hours} h</td>
      <td>
        <div class="cell-actions">
          {mayPause && m.status !== 'failed' && (
            <button type="button" class="btn btn-small" data-monitor-toggle={m.id} onClick={onToggle}>
              {m.status === 'paused' ? 'Resume' : 'Pause'}
            </button>
          )}
          {mayDelete && (
            <button type="button" class="btn btn-small btn-danger" onClick={onDelete}>
              Delete
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}

export function Monitors() {
  const session = useSession();
  const mayPause = can(session, 'pauseMonitor', 'POST') && can(session, 'resumeMonitor', 'POST');
  const mayDelete = can(session, 'deleteMonitor', 'DELETE');
  const [deleting, setDeleting] = useState<MonitorOut | null>(null);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const { busy, error, run } = useAction();
  const list = useAsync(
    () =>
      listMonitors({
        ...(status ? { status } : {}),
        ...(submitted ? { search: submitted } : {}),
        ...(cursor ? { cursor } : {}),
      }),
    [status, submitted, cursor],
  );
  useFocusHeading('monitors');
  const toggle = (m: MonitorOut) =>
    run(async () => {
      const next = await (m.status === 'paused' ? resumeMonitor(m.id) : pauseMonitor(m.id));
      setNotice(
        `${next.subjects[0]?.name ?? 'The monitor'} is ${next.status === 'paused' ? 'paused' : 'active again'}`,
      );
      list.reload();
    });
  const remove = (m: MonitorOut) =>
    run(async () => {
      await deleteMonitor(m.id);
      setNotice(`${subjectOf(m)} is no longer monitored (its checks and alerts stay)`);
      setDeleting(null);
      list.reload();
    });
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Monitors">
        {can(session, 'createMonitor', 'POST') && (
          <FormToggle open={creating} label="New monitor" onToggle={() => setCreating(!creating)} />
        )}
      </PageHeader>
      <Notice text={notice} onClose={() => setNotice(null)} />
      {creating && (
        <NewMonitor
          onCreated={(m) => {
            setCreating(false);
            setNotice(`Monitoring ${m.subjects.map((s) => s.name).join(', ')} every ${m.interval_hours} h`);
            list.reload();
          }}
        />
      )}
      <form
        class="filters"
        aria-label="Filter monitors"
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(search.trim());
          setCursor(undefined);
        }}
      >
        <label>
          Search
          <input
            type="search"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
            placeholder="Name or reference"
          />
        </label>
        <FilterSelect
          label="Status"
          value={status}
          any="Any"
          options={['active', 'paused', 'failed']}
          onValue={(v) => {
            setStatus(v);
            setCursor(undefined);
          }}
        />
        <button type="submit" class="btn btn-primary">
          Search
        </button>
      </form>
      <ErrorBox error={error} title="The action was refused" />
      <ListTable
        list={list}
        loading="Loading monitors…"
        empty="No monitors match."
        columns={['Subject', 'Status', 'Last screened', 'Dataset version', 'Next due', 'Every']}
        actions
        row={(m) => (
          <MonitorRow
            key={m.id}
            m={m}
            mayPause={mayPause}
            mayDelete={mayDelete}
            onToggle={() => toggle(m)}
            onDelete={() => setDeleting(m)}
          />
        )}
      />
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
      <Confirm
        open={deleting !== null}
        title="Stop monitoring?"
        confirmLabel="Delete monitor"
        danger
        busy={busy}
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>
          <strong>{deleting && subjectOf(deleting)}</strong> will no longer be rescreened. The checks and
          alerts it produced stay.
        </p>
      </Confirm>
    </section>
  );
}
