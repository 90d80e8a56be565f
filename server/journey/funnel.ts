import type { FunnelRow } from '../../schemas/journey.js';
import type { Sql } from '../db/sql.js';
import type { Metrics } from '../metrics.js';
import { stepNamesOf } from './session-view.js';

interface TemplateCounts extends Omit<FunnelRow, 'steps'> {
  intake_fields: string[];
  required_checks: string[];
  required_documents: unknown[];
}

/**
 * The journey's funnel (GET /v1/verification_funnel), per template, counted in flows: those given a verification
 * link since `since`, those whose link was opened, those that reached each step (a session reached a step when it
 * was on it or past it: applicant_session_steps), submitted, and decided now. A flow counts once however many links
 * or sessions it had.
 */
export async function verificationFunnel(
  sql: Sql,
  tenantId: string,
  q: { template_id?: string | undefined; since: Date },
): Promise<FunnelRow[]> {
  const scope = sql`
    select fl.flow_id from verification_links fl join flows f on f.id = fl.flow_id
    where fl.tenant_id = ${tenantId} and fl.purpose = 'verification'
      ${q.template_id ? sql`and f.flow_template_id = ${q.template_id}` : sql``}
    group by fl.flow_id having min(fl.created_at) >= ${q.since}`;
  const [rows, steps] = await Promise.all([
    sql<TemplateCounts[]>`
      select t.id as template_id, t.slug as template_slug, t.intake_fields, t.required_checks,
             t.required_documents, count(*)::int as links,
             count(*) filter (where exists (select 1 from applicant_sessions s
               where s.flow_id = f.id and s.purpose = 'verification'))::int as opened,
             count(*) filter (where exists (select 1 from applicant_sessions s
               where s.flow_id = f.id and s.submitted_at is not null))::int as submitted,
             count(*) filter (where f.decision is not null)::int as decided
      from flows f join flow_templates t on t.id = f.flow_template_id
      where f.id in (${scope})
      group by t.id, t.slug order by t.slug`,
    sql<{ template_id: string; step: string; flows: number }[]>`
      select f.flow_template_id as template_id, st.step, count(distinct st.flow_id)::int as flows
      from applicant_session_steps st join flows f on f.id = st.flow_id
      where st.flow_id in (${scope})
      group by 1, 2`,
  ]);
  return rows.map(({ intake_fields, required_checks, required_documents, ...r }) => ({
    ...r,
    steps: Object.fromEntries(
      stepNamesOf({ intake_fields, required_checks, required_documents: required_documents as never[] }).map(
        (step) => [step, steps.find((s) => s.template_id === r.template_id && s.step === step)?.flows ?? 0],
      ),
    ),
  }));
}

/** veriscreen_verification_steps_total is born at 0 for the steps of every template that has a journey, so that a
 * rate over it is defined before the first applicant arrives (templates made later start at their first session). */
export async function primeStepCounter(sql: Sql, metrics: Metrics): Promise<void> {
  const templates = await sql<{ slug: string; intake_fields: string[]; required_checks: string[] }[]>`
    select distinct slug, intake_fields, required_checks from flow_templates
    where archived_at is null and (required_checks && array['document', 'selfie'] or intake_fields <> '{}')
    limit 1000`;
  for (const t of templates) {
    for (const step of stepNamesOf({ ...t, required_documents: [] })) {
      metrics.verificationSteps.inc({ template: t.slug, step }, 0);
    }
  }
}
