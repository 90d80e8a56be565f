import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { OperatorNameOut } from '../../../schemas/operators.js';
import { alertReference, alertSource, alertSubjectName } from '../alert-subject';
import { type Alert, assignAlert, listAlerts } from '../api';
import { fmtRelative, fmtScore, fmtTime, shortId } from '../format';
import { personName, useDirectory } from '../people';
import { href, navigate } from '../router';
import {
  Badge,
  Empty,
  ErrorBox,
  errorText,
  FilterSelect,
  Loading,
  Notice,
  PageHeader,
  Pager,
  useAsync,
  useFocusHeading,
  useSession,
} from '../ui';

export const ALERT_STATES = [
  'open',
  'in_review',
  'escalated',
  'pending_approval',
  'closed_true_match',
  'closed_false_positive',
] as const;

const SLA_WINDOWS: Record<string, number | null> = { any: null, overdue: 0, '4h': 4, '24h': 24 };

export function isClosed(state: string): boolean {
  return state.startsWith('closed');
}

function slaClass(a: Alert): string {
  if (!a.queue_sla_at || isClosed(a.state)) return '';
  const left = new Date(a.queue_sla_at).getTime() - Date.now();
  return left < 0 ? 'sla-overdue' : left < 4 * 3_600_000 ? 'sla-soon' : '';
}

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName));
}

function AlertRow(props: {
  a: Alert;
  active: boolean;
  selected: boolean;
  rowRef: (el: HTMLTableRowElement | null) => void;
  onFocus: () => void;
  onToggle: () => void;
  /** the assignee's name, null when unassigned */
  assignee: string | null;
}) {
  const { a } = props;
  const ev = a.evidence as Record<string, unknown>;
  const subject = alertSubjectName(a);
  const ref = alertReference(a);
  return (
    <tr
      ref={props.rowRef}
      tabIndex={props.active ? 0 : -1}
      class={props.active ? 'row-active' : ''}
      aria-selected={props.selected}
      onFocus={props.onFocus}
      data-alert-id={a.id}
    >
      <td>
        <input
          type="checkbox"
          aria-label={`Select alert for ${subject}`}
          checked={props.selected}
          onChange={props.onToggle}
        />
      </td>
      <td>
        <Badge value={a.state} />
        {a.four_eyes_required && (
          <span class="tag" title="Four-eyes approval required">
            4-eyes
          </span>
        )}
      </td>
      <td>
        <a href={href(`/alerts/${a.id}`)}>{subject}</a>
        <div class="muted small">
          {ref && <span data-subject-ref>{ref} · </span>}
          {alertSource(a).label}
        </div>
      </td>
      <td>
        {String(ev.name ?? a.source_entity_id)}
        <div class="muted small">{String(ev.source ?? '')}</div>
      </td>
      <td class="num">{fmtScore(ev.score)}</td>
      <td>{props.assignee ?? <span class="muted">—</span>}</td>
      <td class={slaClass(a)} title={fmtTime(a.queue_sla_at)}>
        {isClosed(a.state) ? '—' : fmtRelative(a.queue_sla_at)}
      </td>
      <td title={fmtTime(a.created_at)}>{fmtTime(a.created_at)}</td>
    </tr>
  );
}

interface QueueFilterValues {
  state: string;
  assignee: string;
  sla: string;
}

/** The queue's filters: state ("open work" hides closed alerts), assignee, SLA window. */
function QueueFilters(props: {
  filters: QueueFilterValues;
  people: OperatorNameOut[];
  onChange: (f: QueueFilterValues) => void;
  onRefresh: () => void;
}) {
  const { filters, people, onChange, onRefresh } = props;
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter alerts">
      <FilterSelect
        label="State"
        value={filters.state}
        options={[['open_like', 'Open work (not closed)'], ['all', 'All states'], ...ALERT_STATES]}
        show={(s) => s.replace(/_/g, ' ')}
        onValue={(v) => onChange({ ...filters, state: v })}
      />
      <FilterSelect
        label="Assignee"
        value={filters.assignee}
        any="Anyone"
        options={[
          ['me', 'Me'],
          ['none', 'Unassigned'],
          ...people.map((o) => [o.id, `${o.name} (${o.role})`] as const),
        ]}
        onValue={(v) => onChange({ ...filters, assignee: v })}
      />
      <FilterSelect
        label="SLA due"
        value={filters.sla}
        options={[
          ['any', 'Any time'],
          ['overdue', 'Overdue'],
          ['4h', 'Within 4 hours'],
          ['24h', 'Within 24 hours'],
        ]}
        onValue={(v) => onChange({ ...filters, sla: v })}
      />
      <button type="button" class="btn" onClick={onRefresh}>
        Refresh
      </button>
    </form>
  );
}

/** The queue by keyboard: j/k move between rows, Enter opens the active alert, x selects it. */
function useQueueKeys(
  items: Alert[],
  active: number,
  setActive: (i: number) => void,
  rows: { current: (HTMLTableRowElement | null)[] },
  toggle: (id: string) => void,
) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.metaKey || e.ctrlKey || e.altKey) return;
      if (!items.length) return;
      if (e.key === 'j' || e.key === 'k') {
        e.preventDefault();
        const next = Math.max(0, Math.min(items.length - 1, active + (e.key === 'j' ? 1 : -1)));
        setActive(next);
        rows.current[next]?.focus();
      } else if (e.key === 'Enter' && (e.target as HTMLElement | null)?.tagName !== 'BUTTON') {
        const a = items[active];
        if (a && (e.target as HTMLElement | null)?.tagName !== 'A') {
          e.preventDefault();
          navigate(`/alerts/${a.id}`);
        }
      } else if (e.key === 'x') {
        const a = items[active];
        if (a) toggle(a.id);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });
}

/** Assigns the selected alerts at once: to me, to nobody, or to a colleague. */
function BulkBar(props: {
  count: number;
  people: OperatorNameOut[];
  busy: boolean;
  onApply: (target: string) => void;
}) {
  const { count, people, busy, onApply } = props;
  const [bulkTarget, setBulkTarget] = useState('me');
  return (
    <div class="bulkbar" aria-live="polite">
      <span>{count} selected</span>
      <label>
        <span class="sr-only">Assign selected to</span>
        <select value={bulkTarget} onChange={(e) => setBulkTarget(e.currentTarget.value)} disabled={!count}>
          <option value="me">Assign to me</option>
          <option value="none">Unassign</option>
          {people.map((o) => (
            <option key={o.id} value={o.id}>
              Assign to {o.name}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        class="btn btn-primary"
        disabled={!count || busy}
        onClick={() => onApply(bulkTarget)}
      >
        {busy ? 'Assigning…' : 'Apply to selected'}
      </button>
    </div>
  );
}

export function AlertQueue() {
  const session = useSession();
  const [state, setState] = useState('open_like');
  const [assignee, setAssignee] = useState('');
  const [sla, setSla] = useState('any');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [active, setActive] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = useRef<(HTMLTableRowElement | null)[]>([]);
  useFocusHeading('alerts');

  const query = useMemo(() => {
    const hours = SLA_WINDOWS[sla];
    return {
      ...(state !== 'open_like' && state !== 'all' ? { state } : {}),
      ...(assignee ? { assignee } : {}),
      ...(hours !== null && hours !== undefined
        ? { due_before: new Date(Date.now() + hours * 3_600_000).toISOString() }
        : {}),
      limit: 50,
      ...(cursor ? { after: cursor } : {}),
    };
  }, [state, assignee, sla, cursor]);
  const list = useAsync(() => listAlerts(query), [query]);
  const dir = useDirectory(session);
  const people = [...dir.values()].filter((o) => !o.disabled && o.id !== session.operator.id);

  // "Open work" hides closed alerts client-side (the API filters one state at a time)
  const items = useMemo(
    () => (list.data?.items ?? []).filter((a) => state !== 'open_like' || !isClosed(a.state)),
    [list.data, state],
  );

  useEffect(() => {
    setActive(0);
    setSelected(new Set());
  }, [list.data]);

  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  useQueueKeys(items, active, setActive, rows, toggle);

  const bulkAssign = async (bulkTarget: string) => {
    const target = bulkTarget === 'me' ? session.operator.id : bulkTarget === 'none' ? null : bulkTarget;
    setBusy(true);
    const ids = [...selected];
    const results = await Promise.allSettled(ids.map((id) => assignAlert(id, target)));
    const named = (id: string | undefined) => {
      const a = items.find((x) => x.id === id);
      return a ? alertSubjectName(a) : shortId(id);
    };
    const failed = results.flatMap((r, i) =>
      r.status === 'rejected' ? [`${named(ids[i])}: ${errorText(r.reason)}`] : [],
    );
    setBusy(false);
    setNotice(
      failed.length
        ? `${ids.length - failed.length} assigned, ${failed.length} failed — ${failed.join('; ')}`
        : `${ids.length} alert${ids.length === 1 ? '' : 's'} ${target ? 'assigned' : 'unassigned'}`,
    );
    list.reload();
  };

  const resetPaging = () => setCursor(undefined);

  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Alert queue">
        <span class="muted kbd-hint">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>x</kbd> select
        </span>
      </PageHeader>
      <QueueFilters
        filters={{ state, assignee, sla }}
        people={people}
        onChange={(f) => {
          setState(f.state);
          setAssignee(f.assignee);
          setSla(f.sla);
          resetPaging();
        }}
        onRefresh={list.reload}
      />

      <BulkBar count={selected.size} people={people} busy={busy} onApply={bulkAssign} />
      <Notice text={notice} onClose={() => setNotice(null)} />

      {list.loading && !list.data ? (
        <Loading label="Loading alerts…" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : !items.length ? (
        <Empty>No alerts match these filters. Clear a filter or check back later.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="table" aria-describedby="page-title">
            <thead>
              <tr>
                <th scope="col">
                  <span class="sr-only">Select</span>
                </th>
                <th scope="col">State</th>
                <th scope="col">Subject</th>
                <th scope="col">Matched list entity</th>
                <th scope="col">Score</th>
                <th scope="col">Assignee</th>
                <th scope="col">SLA due</th>
                <th scope="col">Raised</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a, i) => (
                <AlertRow
                  key={a.id}
                  a={a}
                  active={i === active}
                  selected={selected.has(a.id)}
                  rowRef={(el) => {
                    rows.current[i] = el;
                  }}
                  onFocus={() => setActive(i)}
                  onToggle={() => toggle(a.id)}
                  assignee={
                    a.assignee?.name ??
                    (a.assigned_to ? personName(a.assigned_to, dir, session.operator) : null)
                  }
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
    </section>
  );
}
