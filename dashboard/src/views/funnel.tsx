import { useState } from 'preact/hooks';
import { type FunnelRow, getFunnel, request } from '../api';
import { fmtNumber, humanize } from '../format';
import { DataTable, Empty, ErrorBox, Loading, PageHeader, useAsync, useFocusHeading } from '../ui';

/**
 * The applicant journey's funnel (GET /v1/verification_funnel), one table per template: links minted → opened →
 * each step reached → submitted → decided, with how many were lost between one stage and the next.
 */

export interface Stage {
  name: string;
  count: number;
}

/** the journey's steps in order (schemas/journey.ts JOURNEY_STEPS) */
const STEP_ORDER = ['consent', 'intake', 'document', 'selfie', 'review'];

/** A template's stages in journey order: links, opened, each step its flows reached, submitted, decided. */
export function stagesOf(r: FunnelRow): Stage[] {
  const rank = (name: string) => STEP_ORDER.indexOf(name) + 1 || STEP_ORDER.length + 1;
  const steps = Object.entries(r.steps)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([name, count]) => ({ name, count }));
  return [
    { name: 'links', count: r.links },
    { name: 'opened', count: r.opened },
    ...steps,
    { name: 'submitted', count: r.submitted },
    { name: 'decided', count: r.decided },
  ];
}

const SINCE = [
  { label: 'Last 24 hours', days: 1 },
  { label: 'Last 7 days', days: 7 },
  { label: 'Last 30 days', days: 30 },
  { label: 'Last 365 days', days: 365 },
];

export function Funnel() {
  const [template, setTemplate] = useState('');
  const [days, setDays] = useState(30);
  const templates = useAsync(
    () => request<{ items: { id: string; name: string; slug: string }[] }>('GET', '/v1/flow_templates'),
    [],
  );
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const funnel = useAsync(
    () => getFunnel({ since, ...(template ? { template_id: template } : {}) }),
    [template, days],
  );
  useFocusHeading('funnel');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Verification funnel" />
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the funnel">
        <div class="field">
          <label for="funnel-template">Template</label>
          <select id="funnel-template" value={template} onChange={(e) => setTemplate(e.currentTarget.value)}>
            <option value="">All templates</option>
            {(templates.data?.items ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="funnel-since">Period</label>
          <select id="funnel-since" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            {SINCE.map((s) => (
              <option key={s.days} value={s.days}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      </form>
      {funnel.loading && !funnel.data ? (
        <Loading label="Loading the funnel…" />
      ) : funnel.error || !funnel.data ? (
        <ErrorBox error={funnel.error} />
      ) : funnel.data.items.length ? (
        funnel.data.items.map((row) => <FunnelTable key={row.template_id} row={row} />)
      ) : (
        <Empty>No verification links were minted in this period.</Empty>
      )}
    </section>
  );
}

function FunnelTable({ row }: { row: FunnelRow }) {
  const stages = stagesOf(row);
  const top = Math.max(1, stages[0]?.count ?? 0);
  const heading = `h-funnel-${row.template_id}`;
  return (
    <section class="card" aria-labelledby={heading} data-template={row.template_slug}>
      <h2 id={heading}>Template {row.template_slug}</h2>
      <DataTable columns={['Stage', 'Applicants', 'Of links', 'Lost since the stage before']}>
        {stages.map((s, i) => {
          const prev = i > 0 ? stages[i - 1] : undefined;
          const lost = prev ? Math.max(0, prev.count - s.count) : 0;
          const pct = Math.round((s.count / top) * 100);
          return (
            <tr key={s.name} data-stage={s.name}>
              <th scope="row">{humanize(s.name)}</th>
              <td data-count={s.count}>{fmtNumber(s.count)}</td>
              <td>
                <span class="funnel-bar" style={{ inlineSize: `${pct}%` }} aria-hidden="true" /> {pct} %
              </td>
              <td data-lost={lost}>
                {prev
                  ? `${fmtNumber(lost)}${prev.count ? ` (${Math.round((lost / prev.count) * 100)} %)` : ''}`
                  : '—'}
              </td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}
