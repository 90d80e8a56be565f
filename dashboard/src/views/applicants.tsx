import { useState } from 'preact/hooks';
import type { ApplicantInternalStatus, ApplicantPatchIn, RISK_TIERS } from '../../../schemas/applicants.js';
import {
  ApiFailure,
  type ApplicantOut,
  eraseApplicant,
  getApplicant,
  listAlerts,
  listApplicants,
  listChecks,
  patchApplicant,
} from '../api';
import { fmtTime, humanize, shortId } from '../format';
import { href, navigate } from '../router';
import {
  Badge,
  Confirm,
  ErrorBox,
  Facts,
  FilterSelect,
  hasRole,
  ListTable,
  Loading,
  Notice,
  PageHeader,
  Pager,
  useAsync,
  useFocusHeading,
  useSession,
} from '../ui';

const STATUSES = [
  'active',
  'under_review',
  'approved',
  'rejected',
  'blocked',
  'archived',
] as const satisfies readonly ApplicantInternalStatus[];
const TIERS = ['low', 'medium', 'high', 'prohibited'] as const satisfies typeof RISK_TIERS;

export function displayName(a: ApplicantOut): string {
  const person = [a.legal_name_first, a.legal_name_middle, a.legal_name_last].filter(Boolean).join(' ');
  return a.business_name ?? (person || a.external_id || shortId(a.id));
}

export function Applicants() {
  const [q, setQ] = useState('');
  const [submitted, setSubmitted] = useState('');
  const [status, setStatus] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const list = useAsync(
    () =>
      listApplicants({
        ...(submitted ? { q: submitted } : {}),
        ...(status ? { status } : {}),
        limit: 50,
        ...(cursor ? { after: cursor } : {}),
      }),
    [submitted, status, cursor],
  );
  useFocusHeading('applicants');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Applicants" />
      <form
        class="filters"
        aria-label="Filter applicants"
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(q.trim());
          setCursor(undefined);
        }}
      >
        <label>
          Search
          <input
            type="search"
            value={q}
            maxLength={200}
            onInput={(e) => setQ(e.currentTarget.value)}
            placeholder="Name, reference or e-mail"
          />
        </label>
        <FilterSelect
          label="Status"
          value={status}
          any="Any"
          options={STATUSES}
          show={humanize}
          onValue={(v) => {
            setStatus(v);
            setCursor(undefined);
          }}
        />
        <button type="submit" class="btn btn-primary">
          Search
        </button>
      </form>
      <ListTable
        list={list}
        loading="Searching…"
        empty={submitted ? `No applicant matches “${submitted}”.` : 'No applicants yet.'}
        columns={['Name', 'Reference', 'Type', 'Status', 'Risk tier', 'Created']}
        row={(a) => (
          <tr key={a.id}>
            <td>
              <a href={href(`/applicants/${a.id}`)}>{displayName(a)}</a>
            </td>
            <td>{a.external_id ?? '—'}</td>
            <td>{a.entity_type}</td>
            <td>
              <Badge value={a.internal_status} />
            </td>
            <td>{a.risk_tier ?? '—'}</td>
            <td>{fmtTime(a.created_at)}</td>
          </tr>
        )}
      />
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
    </section>
  );
}

type Form = Record<
  | 'external_id'
  | 'legal_name_first'
  | 'legal_name_last'
  | 'business_name'
  | 'dob'
  | 'nationality'
  | 'address_country'
  | 'internal_status'
  | 'risk_tier',
  string
>;
const TEXT_FIELDS: [keyof Form, string, string?][] = [
  ['external_id', 'Reference (external ID)'],
  ['legal_name_first', 'First name'],
  ['legal_name_last', 'Last name'],
  ['business_name', 'Business name'],
  ['dob', 'Date of birth', 'YYYY-MM-DD'],
  ['nationality', 'Nationality', 'ISO country code, e.g. DE'],
  ['address_country', 'Country of address', 'ISO country code'],
];

function toForm(a: ApplicantOut): Form {
  return {
    external_id: a.external_id ?? '',
    legal_name_first: a.legal_name_first ?? '',
    legal_name_last: a.legal_name_last ?? '',
    business_name: a.business_name ?? '',
    dob: a.dob ?? '',
    nationality: a.nationality ?? '',
    address_country: a.address_country ?? '',
    internal_status: a.internal_status,
    risk_tier: a.risk_tier ?? '',
  };
}

/** Only what changed; an emptied field is cleared (null). */
function diff(a: ApplicantOut, f: Form): ApplicantPatchIn {
  const before = toForm(a);
  const out: Record<string, string | null> = {};
  for (const k of Object.keys(f) as (keyof Form)[]) {
    if (f[k] === before[k]) continue;
    out[k] = f[k].trim() === '' ? null : f[k].trim();
  }
  return out as ApplicantPatchIn;
}

/** The applicant's record: id, type, e-mail hint, times, and the alerts and checks about it. */
function ApplicantRecord({ a }: { a: ApplicantOut }) {
  const id = a.id;
  const checks = useAsync(() => listChecks({ applicant_id: id, limit: 20 }), [id]);
  const alerts = useAsync(() => listAlerts({ applicant_id: id, limit: 20 }).catch(() => undefined), [id]);
  return (
    <section class="card" aria-labelledby="h-facts">
      <h2 id="h-facts">Record</h2>
      <Facts
        rows={[
          ['ID', <code key="id">{a.id}</code>],
          ['Type', a.entity_type],
          ['E-mail', a.email_hint ?? '—'],
          ['Created', fmtTime(a.created_at)],
          ['Updated', fmtTime(a.updated_at)],
        ]}
      />
      <h3>Alerts</h3>
      {alerts.loading ? (
        <Loading />
      ) : !alerts.data?.items.length ? (
        <p class="muted">No alerts.</p>
      ) : (
        <ul class="plain">
          {alerts.data.items.map((al) => (
            <li key={al.id}>
              <a href={href(`/alerts/${al.id}`)}>
                {String((al.evidence as Record<string, unknown>).name ?? al.source_entity_id)}
              </a>{' '}
              <Badge value={al.state} />
            </li>
          ))}
        </ul>
      )}
      <h3>Recent checks</h3>
      {checks.loading ? (
        <Loading />
      ) : checks.error ? (
        <ErrorBox error={checks.error} />
      ) : !checks.data?.items.length ? (
        <p class="muted">No checks.</p>
      ) : (
        <ul class="plain">
          {checks.data.items.map((c) => (
            <li key={c.id}>
              {humanize(c.check_type)} <Badge value={c.result} />{' '}
              <span class="muted small">{fmtTime(c.created_at)}</span>{' '}
              {c.flow_id && <a href={href(`/flows/${c.flow_id}`)}>flow {shortId(c.flow_id)}</a>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A 409 from the erasure, said with what to do about it. */
const erasureRefused = (err: ApiFailure) =>
  new Error(
    'Erasure refused (409): this applicant still has an open flow (PENDING, AWAITING_INPUT, PROCESSING or NEEDS_REVIEW). Decide or finish those flows first, then erase. ' +
      err.message,
  );

export function ApplicantDetail({ id }: { id: string }) {
  const session = useSession();
  const isAdmin = hasRole(session, 'admin');
  const applicant = useAsync(() => getApplicant(id), [id]);
  const [form, setForm] = useState<Form | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmErase, setConfirmErase] = useState(false);
  useFocusHeading(id);

  if (applicant.loading && !applicant.data) return <Loading label="Loading applicant…" />;
  if (applicant.error || !applicant.data)
    return <ErrorBox error={applicant.error ?? new Error('Not found')} />;
  const a = applicant.data;
  const f = form ?? toForm(a);
  const set = (k: keyof Form, v: string) => setForm({ ...f, [k]: v });
  const changes = diff(a, f);

  const save = async (e: Event) => {
    e.preventDefault();
    if (!Object.keys(changes).length) return;
    setBusy(true);
    setError(undefined);
    try {
      applicant.set(await patchApplicant(a.id, changes));
      setForm(null);
      setNotice('Saved');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const erase = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await eraseApplicant(a.id);
      setConfirmErase(false);
      navigate('/applicants');
    } catch (err) {
      setConfirmErase(false);
      setError(err instanceof ApiFailure && err.status === 409 ? erasureRefused(err) : err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a href={href('/applicants')}>← Applicants</a>
      </p>
      <PageHeader title={displayName(a)}>
        <Badge value={a.internal_status} />
        {isAdmin && (
          <button type="button" class="btn btn-danger" onClick={() => setConfirmErase(true)}>
            Erase personal data
          </button>
        )}
      </PageHeader>
      <Notice text={notice} onClose={() => setNotice(null)} />
      <ErrorBox error={error} title="The change was refused" />
      <div class="grid-2">
        <form class="card stack" onSubmit={save} aria-labelledby="h-edit">
          <h2 id="h-edit">Details</h2>
          <div class="form-grid">
            {TEXT_FIELDS.map(([k, label, hint]) => (
              <div key={k} class="field">
                <label for={`ap-${k}`}>{label}</label>
                <input
                  id={`ap-${k}`}
                  value={f[k]}
                  placeholder={hint}
                  onInput={(e) => set(k, e.currentTarget.value)}
                />
              </div>
            ))}
            <div class="field">
              <label for="ap-status">Status</label>
              <select
                id="ap-status"
                value={f.internal_status}
                disabled={!isAdmin}
                aria-describedby="ap-admin-hint"
                onChange={(e) => set('internal_status', e.currentTarget.value)}
              >
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {humanize(s)}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="ap-tier">Risk tier</label>
              <select
                id="ap-tier"
                value={f.risk_tier}
                disabled={!isAdmin}
                aria-describedby="ap-admin-hint"
                onChange={(e) => set('risk_tier', e.currentTarget.value)}
              >
                <option value="">—</option>
                {TIERS.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
          </div>
          {!isAdmin && (
            <small id="ap-admin-hint" class="muted">
              Status and risk tier are changed by admins.
            </small>
          )}
          <div class="row-actions">
            <button type="submit" class="btn btn-primary" disabled={busy || !Object.keys(changes).length}>
              Save changes
            </button>
            <button type="button" class="btn" disabled={!form} onClick={() => setForm(null)}>
              Discard
            </button>
          </div>
        </form>
        <ApplicantRecord a={a} />
      </div>
      <Confirm
        open={confirmErase}
        title="Erase this applicant’s personal data?"
        confirmLabel="Erase"
        danger
        busy={busy}
        onConfirm={erase}
        onCancel={() => setConfirmErase(false)}
      >
        <p>
          The applicant disappears from lists at once; a background job then deletes documents and records.
          Audit rows keep hashes only. This cannot be undone. It is refused while any flow of the applicant is
          open.
        </p>
      </Confirm>
    </section>
  );
}
