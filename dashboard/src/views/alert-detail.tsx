import { useState } from 'preact/hooks';
import { alertReference, alertSource, alertSubjectName } from '../alert-subject';
import {
  type Alert,
  type ApplicantOut,
  approveAlert,
  assignAlert,
  disposeAlert,
  getAlert,
  getApplicant,
  rejectAlert,
} from '../api';
import { fmtScore, fmtTime, humanize, shortId } from '../format';
import { personName, useDirectory } from '../people';
import { href } from '../router';
import {
  Badge,
  ErrorBox,
  Facts,
  hasRole,
  Loading,
  Notice,
  PageHeader,
  useAsync,
  useFocusHeading,
  useSession,
} from '../ui';
import { isClosed } from './alerts';

/** The subject as its check screened it, where the alert came from, and the applicant's standing when there is
 * one (batch and monitor alerts may have none: the screened subject then says who it is). */
function SubjectCard({ a, applicant }: { a: Alert; applicant: ApplicantOut | undefined }) {
  const subject = a.subject;
  const source = alertSource(a);
  return (
    <section class="card" aria-labelledby="h-subject" data-source={source.kind}>
      <h2 id="h-subject">Subject as screened</h2>
      <Facts
        rows={[
          ['Name screened', subject?.name ?? a.applicant?.name ?? '—'],
          ...(subject?.aliases?.length
            ? [['Also screened as', subject.aliases.join(', ')] as [string, string]]
            : []),
          ['Type', humanize(subject?.type ?? applicant?.entity_type)],
          ['Date of birth', subject?.date_of_birth ?? applicant?.dob ?? '—'],
          ['Nationality', subject?.nationality ?? applicant?.nationality ?? '—'],
          ['Country', subject?.country ?? applicant?.address_country ?? '—'],
          ['Customer reference', alertReference(a) ?? '—'],
          ['Raised by', source.path ? <a href={href(source.path)}>{source.label}</a> : source.label],
          [
            'Applicant',
            a.applicant ? (
              <a href={href(`/applicants/${a.applicant.id}`)}>
                {a.applicant.name ?? a.applicant.external_id ?? shortId(a.applicant.id)}
              </a>
            ) : (
              '—'
            ),
          ],
          ['Risk tier', applicant?.risk_tier ?? '—'],
          ['Status', applicant?.internal_status ?? '—'],
        ]}
      />
    </section>
  );
}

type Who = (ref: string | null | undefined) => string;
/** Runs an action on the alert and shows its outcome; resolves true when it was accepted. */
type Act = (fn: () => Promise<Alert>, done: string) => Promise<boolean>;

/** The list entity the subject matched, as the alert's evidence records it. */
function EntityCard({ a }: { a: Alert }) {
  const ev = a.evidence as Record<string, unknown>;
  return (
    <section class="card" aria-labelledby="h-entity">
      <h2 id="h-entity">List entity matched</h2>
      <Facts
        rows={[
          ['Entity', String(ev.name ?? '—')],
          ['Name that matched', String(ev.matched_name ?? '—')],
          ['List', String(ev.source ?? '—')],
          ['List ID', String(ev.source_id ?? a.source_entity_id)],
          ['Programs', Array.isArray(ev.programs) ? ev.programs.join(', ') || '—' : '—'],
          ['Datasets', Array.isArray(ev.datasets) ? ev.datasets.join(', ') || '—' : '—'],
          [
            'Score',
            <span key="s">
              {fmtScore(ev.score)} <span class="muted">(threshold {fmtScore(ev.threshold)})</span>
              {ev.strong === true && <span class="tag tag-danger">strong</span>}
            </span>,
          ],
          ['Dataset version', <code key="dv">{String(ev.dataset_version ?? '—')}</code>],
        ]}
      />
      <EntitySources sources={ev.sources} />
    </section>
  );
}

/** A pending four-eyes proposal: who proposed what and why; a different supervisor approves or rejects it. */
function ProposalReview({ a, act, busy, who }: { a: Alert; act: Act; busy: boolean; who: Who }) {
  const session = useSession();
  const me = session.operator;
  const [reviewReason, setReviewReason] = useState('');
  const mineProposal = a.disposed_by === me.id || a.disposed_by === `operator:${me.id}`;
  const canReview = hasRole(session, 'supervisor') && !mineProposal;
  return (
    <section class="proposal" aria-labelledby="h-proposal">
      <h3 id="h-proposal">Pending four-eyes approval</h3>
      <p>
        <strong>{who(a.disposed_by)}</strong> proposed <Badge value={a.disposition ?? 'unknown'} />{' '}
        {a.proposed_at && <span class="muted">on {fmtTime(a.proposed_at)}</span>}
      </p>
      <blockquote class="reason">{a.disposition_reason ?? '—'}</blockquote>
      {mineProposal && <p class="muted">You proposed this: a different supervisor must approve it.</p>}
      {!hasRole(session, 'supervisor') && <p class="muted">A supervisor approves or rejects it.</p>}
      {canReview && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
          }}
        >
          <label for="review-reason">Reason for rejecting (sends the alert back to review)</label>
          <textarea
            id="review-reason"
            rows={3}
            value={reviewReason}
            onInput={(e) => setReviewReason(e.currentTarget.value)}
          />
          <div class="row-actions">
            <button
              type="button"
              class="btn btn-primary"
              disabled={busy}
              onClick={() => act(() => approveAlert(a.id), 'Approved: the alert is closed')}
            >
              Approve
            </button>
            <button
              type="button"
              class="btn btn-danger"
              disabled={busy || !reviewReason.trim()}
              onClick={() => act(() => rejectAlert(a.id, reviewReason.trim()), 'Rejected: back in review')}
            >
              Reject
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The disposition of an open alert: closes it, or proposes it when four-eyes is required. */
function DisposeForm({ a, act, busy }: { a: Alert; act: Act; busy: boolean }) {
  const [disposition, setDisposition] = useState<'false_positive' | 'true_match'>('false_positive');
  const [reason, setReason] = useState('');
  return (
    <form
      class="stack"
      aria-labelledby="h-dispose"
      onSubmit={(e) => {
        e.preventDefault();
        if (!reason.trim()) return;
        void act(
          () => disposeAlert(a.id, disposition, reason.trim()),
          a.four_eyes_required ? 'Proposed: waiting for a supervisor' : 'Alert closed',
        );
      }}
    >
      <h3 id="h-dispose">{a.four_eyes_required ? 'Propose a disposition' : 'Disposition'}</h3>
      <fieldset class="radios">
        <legend class="sr-only">Disposition</legend>
        <label>
          <input
            type="radio"
            name="disposition"
            value="false_positive"
            checked={disposition === 'false_positive'}
            onChange={() => setDisposition('false_positive')}
          />
          False positive
        </label>
        <label>
          <input
            type="radio"
            name="disposition"
            value="true_match"
            checked={disposition === 'true_match'}
            onChange={() => setDisposition('true_match')}
          />
          True match
        </label>
      </fieldset>
      <label for="dispose-reason">Reason</label>
      <textarea
        id="dispose-reason"
        rows={3}
        required
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
        placeholder="Why: what in the evidence decides it"
      />
      <button type="submit" class="btn btn-primary" disabled={busy || !reason.trim()}>
        {a.four_eyes_required ? 'Propose' : 'Close alert'}
      </button>
      {a.four_eyes_required && (
        <p class="muted small">Four-eyes: a supervisor other than you approves before the alert closes.</p>
      )}
    </form>
  );
}

/** Assignment, the four-eyes proposal and the disposition: what can be done with the alert in its state. */
function WorkCard(props: { a: Alert; act: Act; busy: boolean; error: unknown; who: Who }) {
  const { a, act, busy, who } = props;
  const me = useSession().operator;
  const closed = isClosed(a.state);
  const pending = a.state === 'pending_approval';
  return (
    <section class="card" aria-labelledby="h-work">
      <h2 id="h-work">Work this alert</h2>
      <Facts
        rows={[
          ['Assignee', a.assignee?.name ?? who(a.assigned_to)],
          ['SLA due', fmtTime(a.queue_sla_at)],
        ]}
      />
      {!closed && (
        <div class="row-actions">
          {a.assigned_to !== me.id && (
            <button
              type="button"
              class="btn"
              disabled={busy}
              onClick={() => act(() => assignAlert(a.id, me.id), 'Assigned to you')}
            >
              Assign to me
            </button>
          )}
          {a.assigned_to && (
            <button
              type="button"
              class="btn"
              disabled={busy}
              onClick={() => act(() => assignAlert(a.id, null), 'Unassigned')}
            >
              Unassign
            </button>
          )}
        </div>
      )}
      {pending && <ProposalReview a={a} act={act} busy={busy} who={who} />}
      {!closed && !pending && <DisposeForm a={a} act={act} busy={busy} />}
      {closed && (
        <p>
          Closed as <Badge value={a.disposition ?? a.state} /> by {who(a.disposed_by)}
          {a.reviewed_by ? ` · approved by ${who(a.reviewed_by)}` : ''}.
        </p>
      )}
      <ErrorBox error={props.error} title="The action was refused" />
    </section>
  );
}

/** What happened to the alert, oldest first. */
function HistoryCard({ a, who }: { a: Alert; who: Who }) {
  return (
    <section class="card" aria-labelledby="h-history">
      <h2 id="h-history">History</h2>
      <ol class="timeline">
        <li>
          <time>{fmtTime(a.created_at)}</time> raised by check <code>{shortId(a.check_id)}</code>
        </li>
        {a.escalated_at && (
          <li>
            <time>{fmtTime(a.escalated_at)}</time> escalated
          </li>
        )}
        {a.proposed_at && (
          <li>
            <time>{fmtTime(a.proposed_at)}</time> {who(a.disposed_by)} proposed {humanize(a.disposition)}
          </li>
        )}
        {a.reviewed_at && (
          <li>
            <time>{fmtTime(a.reviewed_at)}</time> {who(a.reviewed_by)} reviewed
            {a.review_reason ? `: “${a.review_reason}”` : ''}
          </li>
        )}
        {a.disposed_at && (
          <li>
            <time>{fmtTime(a.disposed_at)}</time> closed ({humanize(a.disposition ?? a.state)})
          </li>
        )}
        {(a.history ?? []).map((h) => (
          <li key={`${h.at}-${h.action}`}>
            <time>{fmtTime(h.at)}</time> {humanize(h.action)} {h.actor ? `by ${who(h.actor)}` : ''}
            {h.reason ? `: “${h.reason}”` : ''}
          </li>
        ))}
        <li>
          <time>{fmtTime(a.updated_at)}</time> last change
        </li>
      </ol>
    </section>
  );
}

/** The score of each matching feature, and the check that raised the alert. */
function FeaturesCard({ a }: { a: Alert }) {
  const features = ((a.evidence as Record<string, unknown>).features ?? {}) as Record<string, unknown>;
  const check = a.check;
  return (
    <section class="card card-after" aria-labelledby="h-features">
      <h2 id="h-features">Evidence by feature</h2>
      {Object.keys(features).length ? (
        <table class="table table-compact">
          <thead>
            <tr>
              <th scope="col">Feature</th>
              <th scope="col">Score</th>
              <th scope="col">
                <span class="sr-only">Bar</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(features).map(([k, v]) => (
              <tr key={k}>
                <td>{humanize(k)}</td>
                <td class="num">{fmtScore(v)}</td>
                <td class="bar-cell">
                  <span class="bar" style={{ width: `${Math.max(0, Math.min(1, Number(v) || 0)) * 100}%` }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No per-feature evidence recorded.</p>
      )}
      {check && (
        <p class="muted small">
          Check <code>{shortId(check.id)}</code> · {check.mode} · {check.latency_ms} ms ·{' '}
          {a.flow_id ? <a href={href(`/flows/${a.flow_id}`)}>open the flow</a> : alertSource(a).label}
        </p>
      )}
    </section>
  );
}

export function AlertDetail({ id }: { id: string }) {
  const session = useSession();
  const dir = useDirectory(session);
  const who: Who = (ref) => personName(ref, dir, session.operator);
  const alert = useAsync(() => getAlert(id), [id]);
  const applicantId = alert.data?.applicant_id ?? alert.data?.applicant?.id ?? null;
  const applicant = useAsync(
    () => (applicantId ? getApplicant(applicantId).catch(() => undefined) : Promise.resolve(undefined)),
    [applicantId],
  );
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  useFocusHeading(id);

  if (alert.loading && !alert.data) return <Loading label="Loading alert…" />;
  if (alert.error || !alert.data) return <ErrorBox error={alert.error ?? new Error('Alert not found')} />;
  const a = alert.data;

  const act: Act = async (fn, done) => {
    setBusy(true);
    setActionError(undefined);
    try {
      alert.set(await fn());
      setNotice(done);
      return true;
    } catch (e) {
      setActionError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="page-title" class="alert-detail">
      <p class="crumbs">
        <a href={href('/alerts')}>← Alert queue</a>
      </p>
      <PageHeader title={`Alert: ${alertSubjectName(a)}`}>
        <Badge value={a.state} />
        {a.four_eyes_required && <span class="tag">four-eyes</span>}
      </PageHeader>
      <Notice text={notice} onClose={() => setNotice(null)} />
      <div class="grid-2">
        <SubjectCard a={a} applicant={applicant.data} />
        <EntityCard a={a} />
      </div>
      <div class="grid-2">
        <WorkCard a={a} act={act} busy={busy} error={actionError} who={who} />
        <HistoryCard a={a} who={who} />
      </div>
      <FeaturesCard a={a} />
    </section>
  );
}

interface SourceEntry {
  entity_id: string;
  source: string;
  source_id: string;
  name: string;
  score: number;
  programs: string[];
  matched_name: string;
}

/** Every list entry of a consolidated entity (entries of several lists linked at dataset build): one alert names
 * them all, each with its own best-matching name and score. Nothing for an entity on one list. */
function EntitySources({ sources }: { sources: unknown }) {
  if (!Array.isArray(sources) || sources.length < 2) return null;
  const rows = sources as SourceEntry[];
  return (
    <>
      <h3 id="h-sources">The same entity on {rows.length} lists</h3>
      <table class="table table-compact" aria-labelledby="h-sources">
        <thead>
          <tr>
            <th scope="col">List</th>
            <th scope="col">List ID</th>
            <th scope="col">Name that matched</th>
            <th scope="col">Programs</th>
            <th scope="col">Score</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((x) => (
            <tr key={x.entity_id} data-entity-id={x.entity_id}>
              <td>{x.source}</td>
              <td>{x.source_id}</td>
              <td>{x.matched_name}</td>
              <td>{x.programs.join(', ') || '—'}</td>
              <td>{fmtScore(x.score)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
