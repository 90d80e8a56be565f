import type { ComponentChildren, JSX } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { requiredRole, roleAllows } from '../../schemas/operation-roles.js';
import { ApiFailure, type Role, type Session } from './api';
import { humanize } from './format';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('no session');
  return s;
}

export function hasRole(s: Session, needed: Role): boolean {
  return roleAllows(s.operator.role, needed);
}

/** Whether the signed-in operator's role may call an operation: the server's own table (schemas/operation-roles.ts). */
export function can(
  s: Session,
  operationId: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
): boolean {
  return roleAllows(s.operator.role, requiredRole(operationId, method));
}

export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  set: (t: T) => void;
}

/** Loads on mount and whenever `key` changes; stale answers (an older key) are dropped. */
export function useAsync<T>(fn: () => Promise<T>, key: unknown[]): Async<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    setError(undefined);
    fn().then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== seq.current) return;
        setError(e);
        setLoading(false);
      },
    );
  }, [...key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload, set: setData };
}

export function errorText(e: unknown): string {
  if (e instanceof ApiFailure) return e.describe();
  return e instanceof Error ? e.message : String(e);
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const f = error instanceof ApiFailure ? error : undefined;
  return (
    <div class="state state-error" role="alert">
      <strong>
        {title ??
          (f?.status === 403 ? 'Not allowed' : f?.status === 404 ? 'Not found' : 'Something went wrong')}
      </strong>
      <span>{errorText(error)}</span>
      {f && f.status > 0 && <code class="muted">{`${f.status} ${f.code}`}</code>}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state state-empty">{children}</p>;
}

export function Badge({ value, kind }: { value: string | null | undefined; kind?: string }) {
  const v = value ?? 'none';
  return <span class={`badge badge-${kind ?? v.toLowerCase()}`}>{humanize(v)}</span>;
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1 tabIndex={-1} id="page-title">
        {title}
      </h1>
      <div class="page-actions">{children}</div>
    </header>
  );
}

/** A modal confirmation on the native <dialog> (focus is trapped and returned by the browser). */
export function Confirm(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onCancel={props.onCancel}>
      <h2 id="dialog-title">{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={props.onCancel}>
          Cancel
        </button>
        <button
          type="button"
          class={props.danger ? 'btn btn-danger' : 'btn btn-primary'}
          disabled={props.busy}
          onClick={props.onConfirm}
        >
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A key/value table for summaries. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <div key={k} class="fact">
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Pager({ next, onNext }: { next: string | null | undefined; onNext: (c: string) => void }) {
  if (!next) return null;
  return (
    <div class="pager">
      <button type="button" class="btn" onClick={() => onNext(next)}>
        Next page
      </button>
    </div>
  );
}

/** Focus the page heading after navigation so that screen readers announce the new view. */
export function useFocusHeading(key: unknown): void {
  useEffect(() => {
    document.getElementById('page-title')?.focus({ preventScroll: true });
  }, [key]);
}

export function Notice({ text, onClose }: { text: string | null; onClose: () => void }) {
  if (!text) return null;
  return (
    <div class="notice" role="status">
      <span>{text}</span>
      <button type="button" class="btn btn-small" onClick={onClose} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

/** A table with one header row of plain column names (and an optional unlabeled trailing actions column). */
export function DataTable(props: {
  columns: string[];
  actions?: boolean;
  compact?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={props.compact ? 'table table-compact' : 'table'}>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            {props.actions && (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/**
 * One page of a list as a table, behind the usual ladder: a spinner while the first answer is pending,
 * the error if it failed, the empty text if it holds no items.
 */
export function ListTable<T>(props: {
  list: { data: { items: readonly T[] } | undefined; error: unknown; loading: boolean };
  loading?: string;
  empty: ComponentChildren;
  columns: string[];
  actions?: boolean;
  compact?: boolean;
  row: (item: T) => ComponentChildren;
}) {
  const { list } = props;
  if (list.loading && !list.data) return <Loading label={props.loading} />;
  if (list.error) return <ErrorBox error={list.error} />;
  if (!list.data?.items.length) return <Empty>{props.empty}</Empty>;
  return (
    <DataTable columns={props.columns} actions={props.actions} compact={props.compact}>
      {list.data.items.map((item) => props.row(item))}
    </DataTable>
  );
}

/** A labelled text/number input of a form grid, marked invalid with the API's complaint about it under it. */
export function TextField({
  id,
  label,
  value,
  onValue,
  issue,
  wide,
  ...rest
}: {
  id: string;
  label: string;
  value: string | number;
  onValue: (v: string) => void;
  issue?: string | undefined;
  wide?: boolean;
} & Omit<JSX.IntrinsicElements['input'], 'id' | 'value' | 'onInput' | 'class'>) {
  return (
    <div class={wide ? 'field field-wide' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={!!issue}
        {...rest}
      />
      {issue && <small class="error-text">{issue}</small>}
    </div>
  );
}

/** What a 422 says about one field (every issue whose location names it), or '' when it says nothing. */
export function issueAt(error: unknown, field: string): string {
  return error instanceof ApiFailure
    ? error.issues
        .filter((i) => i.loc.includes(field))
        .map((i) => i.msg)
        .join('; ')
    : '';
}

export interface Action {
  busy: boolean;
  error: unknown;
  setError: (e: unknown) => void;
  /**
   * Runs one user action: clears the last error, marks busy (unless `busy: false`) until it settles, and
   * keeps what it threw (through `onError`, which may also map it) for an ErrorBox.
   */
  run: (
    fn: () => Promise<unknown>,
    opts?: { busy?: boolean; onError?: (e: unknown) => unknown },
  ) => Promise<void>;
}

/** The busy flag and last error of the action buttons/forms of one view. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run: Action['run'] = async (fn, opts = {}) => {
    const marks = opts.busy ?? true;
    if (marks) setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (e) {
      setError(opts.onError ? opts.onError(e) : e);
    } finally {
      if (marks) setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** The primary button that opens (and closes) a view's inline create form. */
export function FormToggle({
  open,
  label,
  onToggle,
}: {
  open: boolean;
  label: string;
  onToggle: () => void;
}) {
  return (
    <button type="button" class="btn btn-primary" onClick={onToggle}>
      {open ? 'Close the form' : label}
    </button>
  );
}

/** One option of a FilterSelect: a value shown as is, or a value with its label. */
export type FilterOption = string | readonly [value: string, label: string];

/**
 * A list filter: a labelled select whose change calls `onValue` (the view resets its paging there). `any` is
 * the label of the empty value ("no filter"), when the filter has one.
 */
export function FilterSelect({
  label,
  value,
  onValue,
  options,
  any,
  show = (v) => v,
}: {
  label: string;
  value: string;
  onValue: (v: string) => void;
  options: readonly FilterOption[];
  any?: string;
  /** how a bare value is shown */
  show?: (v: string) => string;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onValue(e.currentTarget.value)}>
        {any !== undefined && <option value="">{any}</option>}
        {options.map((o) => {
          const [v, text] = typeof o === 'string' ? [o, show(o)] : o;
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/**
 * A recorded value (a sub-check's value, expected value …) as an operator reads it, not as JSON: nothing as "—",
 * yes/no, numbers in the locale's form, a list of plain values joined by commas, an object as labelled lines
 * (nested as far as it goes).
 */
export function ReadableValue({ value }: { value: unknown }): JSX.Element {
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  if (typeof value === 'boolean') return <span>{value ? 'yes' : 'no'}</span>;
  if (typeof value === 'number')
    return <span class="num">{value.toLocaleString(undefined, { maximumFractionDigits: 3 })}</span>;
  if (typeof value === 'string') return <span>{value}</span>;
  if (Array.isArray(value)) {
    if (!value.length) return <span class="muted">none</span>;
    if (value.every((v) => v === null || typeof v !== 'object'))
      return (
        <span>
          {value.map((v, i) => (
            <span key={i}>
              {i > 0 && ', '}
              <ReadableValue value={v} />
            </span>
          ))}
        </span>
      );
    return (
      <ul class="plain readable">
        {value.map((v, i) => (
          <li key={i}>
            <ReadableValue value={v} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) return <span class="muted">—</span>;
    return (
      <dl class="readable">
        {entries.map(([k, v]) => (
          <div key={k}>
            <dt>{humanize(k)}:</dt>
            <dd>
              <ReadableValue value={v} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <span>{String(value)}</span>;
}
