import { useEffect, useState } from 'preact/hooks';
import { listBatches, listMonitors, type MonitorOut, pauseMonitor, resumeMonitor } from '../api';
import { fmtNumber, fmtRelative, fmtTime, shortId } from '../format';
import { href } from '../router';
import {
  Badge,
  can,
  Empty,
  ErrorBox,
  Loading,
  PageHeader,
  Pager,
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
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setCursor(undefined);
            }}
          >
            <option value="">Any</option>
            <option value="queued">queued</option>
            <option value="processing">processing</option>
            <option value="completed">completed</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <button type="button" class="btn" onClick={list.reload}>
          Refresh
        </button>
      </form>
      {list.loading && !list.data ? (
        <Loading label="Loading batches…" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : !list.data?.items.length ? (
        <Empty>No batches yet: upload a customer CSV, or submit one through POST /v1/check_batches.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Batch</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col">Use case</th>
                <th scope="col">Datasets</th>
                <th scope="col">Created</th>
                <th scope="col">Completed</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((b) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
    </section>
  );
}

export function Monitors() {
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
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
  const toggle = async (m: MonitorOut) => {
    setError(undefined);
    try {
      await (m.status === 'paused' ? resumeMonitor(m.id) : pauseMonitor(m.id));
      list.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Monitors" />
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
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setCursor(undefined);
            }}
          >
            <option value="">Any</option>
            <option value="active">active</option>
            <option value="paused">paused</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <button type="submit" class="btn btn-primary">
          Search
        </button>
      </form>
      <ErrorBox error={error} title="The action was refused" />
      {list.loading && !list.data ? (
        <Loading label="Loading monitors…" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : !list.data?.items.length ? (
        <Empty>No monitors match.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
                <th scope="col">Last screened</th>
                <th scope="col">Dataset version</th>
                <th scope="col">Next due</th>
                <th scope="col">Every</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((m) => (
                <tr key={m.id}>
                  <td>
                    {m.subjects.map((s) => s.name).join(', ') || shortId(m.id)}
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
                  <td title={fmtTime(m.next_due_at)}>
                    {m.status === 'active' ? fmtRelative(m.next_due_at) : '—'}
                  </td>
                  <td>{m.interval_hours} h</td>
                  <td>
                    {m.status !== 'failed' && (
                      <button type="button" class="btn btn-small" onClick={() => toggle(m)}>
                        {m.status === 'paused' ? 'Resume' : 'Pause'}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
    </section>
  );
}
