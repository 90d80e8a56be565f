import { useState } from 'preact/hooks';
import type { FlowDecideIn, FlowDecision, FlowStatus } from '../../../schemas/flows.js';
import {
  type CheckOut,
  decideFlow,
  type FlowOut,
  getApplicant,
  getFlow,
  listAlerts,
  listFlows,
  rerunAml,
} from '../api';
import { fmtTime, humanize, shortId } from '../format';
import { personName, useDirectory } from '../people';
import { href } from '../router';
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
import { displayName } from './applicants';
import { IdentitySection } from './identity';
import { VerificationSection } from './verification';

// kept here (type-checked against schemas/) so that TypeBox stays out of the bundle
const FLOW_STATUSES = [
  'PENDING',
  'AWAITING_INPUT',
  'PROCESSING',
  'NEEDS_REVIEW',
  'APPROVED',
  'REJECTED',
  'FAILED',
] as const satisfies readonly FlowStatus[];
const FLOW_DECISIONS = [
  'AUTO_APPROVED',
  'MANUAL_REVIEW',
  'REJECTED',
] as const satisfies readonly FlowDecision[];
const REASON_CODE = /^[a-z0-9_]{1,64}$/;

export function Flows() {
  const [status, setStatus] = useState('');
  const [decision, setDecision] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const list = useAsync(
    () =>
      listFlows({
        ...(status ? { status } : {}),
        ...(decision ? { decision } : {}),
        limit: 50,
        ...(cursor ? { after: cursor } : {}),
      }),
    [status, decision, cursor],
  );
  useFocusHeading('flows');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Flows" />
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter flows">
        <FilterSelect
          label="Status"
          value={status}
          any="Any"
          options={FLOW_STATUSES}
          show={humanize}
          onValue={(v) => {
            setStatus(v);
            setCursor(undefined);
          }}
        />
        <FilterSelect
          label="Decision"
          value={decision}
          any="Any"
          options={FLOW_DECISIONS}
          show={humanize}
          onValue={(v) => {
            setDecision(v);
            setCursor(undefined);
          }}
        />
        <button type="button" class="btn" onClick={list.reload}>
          Refresh
        </button>
      </form>
      <ListTable
        list={list}
        loading="Loading flows…"
        empty="No flows match these filters."
        columns={['Flow', 'Applicant', 'Status', 'Decision', 'Reason codes', 'Type', 'Mode', 'Created']}
        row={(f) => (
          <tr key={f.id} data-flow-id={f.id}>
            <td>
              <a href={href(`/flows/${f.id}`)} title={f.id}>
                <code>{shortId(f.id)}</code>
              </a>
            </td>
            <td>
              {f.applicant ? (
                <>
                  <a href={href(`/applicants/${f.applicant_id}`)}>
                    {f.applicant.name ?? f.applicant.external_id ?? shortId(f.applicant_id)}
                  </a>
                  {f.applicant.name && f.applicant.external_id && (
                    <div class="muted small">{f.applicant.external_id}</div>
                  )}
                </>
              ) : (
                <span class="muted">erased</span>
              )}
            </td>
            <td>
              <Badge value={f.status} />
            </td>
            <td>{f.decision ? <Badge value={f.decision} /> : <span class="muted">—</span>}</td>
            <td class="codes">{f.decision_reason_codes.join(', ') || '—'}</td>
            <td>{f.type}</td>
            <td>{f.execution_mode}</td>
            <td>{fmtTime(f.created_at)}</td>
          </tr>
        )}
      />
      <Pager next={list.data?.next_cursor} onNext={setCursor} />
    </section>
  );
}

function CheckRow({ c }: { c: CheckOut }) {
  return (
    <li class="check">
      <details>
        <summary>
          <strong>{humanize(c.check_type)}</strong> <Badge value={c.result} /> <Badge value={c.status} />
          {c.decision && <Badge value={c.decision} />}
          <span class="muted small">
            {' '}
            {fmtTime(c.created_at)} · {c.latency_ms} ms{c.alert_count ? ` · ${c.alert_count} alert(s)` : ''}
          </span>
          {c.reason_codes?.length ? <span class="codes"> · {c.reason_codes.join(', ')}</span> : null}
        </summary>
        {c.error && <p class="state state-error">{c.error}</p>}
        {c.dataset_versions.length > 0 && (
          <p class="small">
            Dataset version: <code>{c.dataset_versions.join(', ')}</code>
          </p>
        )}
        <pre class="json">{JSON.stringify(c.evidence, null, 2)}</pre>
      </details>
    </li>
  );
}

/** What the flow is: its applicant, decision, template, datasets, policy and times. */
function FlowSummary(props: { f: FlowOut; applicantName: string | null; reviewer: string | null }) {
  const { f, applicantName, reviewer } = props;
  return (
    <section class="card" aria-labelledby="h-flow">
      <h2 id="h-flow">Summary</h2>
      <Facts
        rows={[
          [
            'Applicant',
            <a key="a" href={href(`/applicants/${f.applicant_id}`)}>
              {applicantName ?? shortId(f.applicant_id)}
            </a>,
          ],
          ['Decision', f.decision ? humanize(f.decision) : '—'],
          ['Type', f.type],
          ['Mode', f.execution_mode],
          ['Template', f.template_slug ?? '—'],
          ['Datasets', f.datasets?.join(', ') ?? '—'],
          [
            'Reason codes',
            <span key="rc" class="codes">
              {f.decision_reason_codes.join(', ') || '—'}
            </span>,
          ],
          ['Policy version', f.policy_version ?? '—'],
          ['Reviewed by', reviewer ? `${reviewer} · ${fmtTime(f.reviewed_at)}` : '—'],
          ['Created', fmtTime(f.created_at)],
          ['Completed', fmtTime(f.completed_at)],
          ['Failure', f.failure_reason ?? '—'],
        ]}
      />
    </section>
  );
}

/** A supervisor's decision on a flow in review, with reason codes checked as they are typed. */
function DecideForm(props: { busy: boolean; openAlerts: boolean; onDecide: (body: FlowDecideIn) => void }) {
  const { busy, openAlerts, onDecide } = props;
  const [decision, setDecision] = useState<FlowDecision>('AUTO_APPROVED');
  const [codes, setCodes] = useState('');
  const codeList = codes
    .split(/[\s,]+/)
    .map((c) => c.trim())
    .filter(Boolean);
  const badCodes = codeList.filter((c) => !REASON_CODE.test(c));
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        onDecide({ decision, ...(codeList.length ? { reason_codes: codeList } : {}) });
      }}
      aria-labelledby="h-review"
    >
      {openAlerts && (
        <p class="state state-warn">This flow still has open alerts: work them first, or decide knowingly.</p>
      )}
      <label for="decide-decision">Decision</label>
      <select
        id="decide-decision"
        value={decision}
        onChange={(e) => setDecision(e.currentTarget.value as FlowDecision)}
      >
        {FLOW_DECISIONS.map((d) => (
          <option key={d} value={d}>
            {humanize(d)}
          </option>
        ))}
      </select>
      <label for="decide-codes">Reason codes (comma separated)</label>
      <input
        id="decide-codes"
        value={codes}
        onInput={(e) => setCodes(e.currentTarget.value)}
        placeholder="e.g. aml_false_positive_cleared"
        aria-invalid={badCodes.length > 0}
        aria-describedby="decide-codes-hint"
      />
      <small id="decide-codes-hint" class={badCodes.length ? 'error-text' : 'muted'}>
        {badCodes.length
          ? `Not a reason code: ${badCodes.join(', ')} (lower case letters, digits, _)`
          : 'lower case letters, digits and _, up to 20'}
      </small>
      <button type="submit" class="btn btn-primary" disabled={busy || badCodes.length > 0}>
        Decide
      </button>
    </form>
  );
}

export function FlowDetail({ id }: { id: string }) {
  const session = useSession();
  const dir = useDirectory(session);
  const flow = useAsync(() => getFlow(id), [id]);
  const applicantId = flow.data?.applicant_id;
  const applicant = useAsync(
    () => (applicantId ? getApplicant(applicantId).catch(() => undefined) : Promise.resolve(undefined)),
    [applicantId],
  );
  const alerts = useAsync(() => listAlerts({ flow_id: id, limit: 50 }).catch(() => undefined), [id]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmRerun, setConfirmRerun] = useState(false);
  useFocusHeading(id);

  if (flow.loading && !flow.data) return <Loading label="Loading flow…" />;
  if (flow.error || !flow.data) return <ErrorBox error={flow.error ?? new Error('Flow not found')} />;
  const f: FlowOut = flow.data;
  const canDecide = f.status === 'NEEDS_REVIEW' && hasRole(session, 'supervisor');

  const decide = async (body: FlowDecideIn) => {
    setBusy(true);
    setError(undefined);
    try {
      flow.set(await decideFlow(f.id, body));
      setNotice(`Decided: ${humanize(body.decision)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const rerun = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await rerunAml(f.id);
      setConfirmRerun(false);
      setNotice('AML screen re-run: a new check was recorded');
      flow.reload();
    } catch (err) {
      setConfirmRerun(false);
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const openAlerts = alerts.data?.items ?? [];
  const applicantName = applicant.data ? displayName(applicant.data) : null;

  return (
    <section aria-labelledby="page-title">
      <p class="crumbs">
        <a href={href('/flows')}>← Flows</a>
      </p>
      <PageHeader title={`Flow ${shortId(f.id)}${applicantName ? `: ${applicantName}` : ''}`}>
        <Badge value={f.status} />
        <button type="button" class="btn" disabled={busy} onClick={() => setConfirmRerun(true)}>
          Re-run AML screen
        </button>
      </PageHeader>
      <Notice text={notice} onClose={() => setNotice(null)} />
      <ErrorBox error={error} title="The action was refused" />
      <div class="grid-2">
        <FlowSummary
          f={f}
          applicantName={applicantName}
          reviewer={f.reviewed_by ? personName(f.reviewed_by, dir, session.operator) : null}
        />
        <section class="card" aria-labelledby="h-review">
          <h2 id="h-review">Review</h2>
          {f.status !== 'NEEDS_REVIEW' ? (
            <p class="muted">
              Only a flow in NEEDS_REVIEW is decided by hand; this one is {humanize(f.status)}.
            </p>
          ) : !canDecide ? (
            <p class="muted">A supervisor or an admin decides flows in review.</p>
          ) : (
            <DecideForm
              busy={busy}
              openAlerts={openAlerts.some((a) => !a.state.startsWith('closed'))}
              onDecide={decide}
            />
          )}
          <h3>Alerts of this flow</h3>
          {alerts.loading ? (
            <Loading />
          ) : !openAlerts.length ? (
            <p class="muted">No alerts.</p>
          ) : (
            <ul class="plain">
              {openAlerts.map((a) => (
                <li key={a.id}>
                  <a href={href(`/alerts/${a.id}`)}>
                    {String((a.evidence as Record<string, unknown>).name ?? a.source_entity_id)}
                  </a>{' '}
                  <Badge value={a.state} />
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <IdentitySection f={f} />
      <VerificationSection f={f} />
      <section class="card" aria-labelledby="h-checks">
        <h2 id="h-checks">Checks</h2>
        {f.checks?.length ? (
          <ul class="checks">
            {f.checks.map((c) => (
              <CheckRow key={c.id} c={c} />
            ))}
          </ul>
        ) : (
          <p class="muted">No checks have run yet.</p>
        )}
      </section>
      <Confirm
        open={confirmRerun}
        title="Re-run the AML screen?"
        confirmLabel="Re-run"
        busy={busy}
        onConfirm={rerun}
        onCancel={() => setConfirmRerun(false)}
      >
        <p>
          The sanctions/PEP check runs again against the active dataset version. A new check is recorded; the
          old one stays.
        </p>
      </Confirm>
    </section>
  );
}
