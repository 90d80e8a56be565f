-- Alerts issue: the alert state machine (server/alerts/alert-states.ts), four-eyes proposals, list filters.

-- the disposition: proposed (state pending_approval) or final (closed_*)
alter table alerts add column disposition text check (disposition in ('true_match', 'false_positive'));
-- four-eyes: when the disposition was proposed and a hash of the alert's evidence at that moment
alter table alerts add column proposed_at timestamptz;
alter table alerts add column proposed_evidence_hash text;
-- a supervisor's reason for sending a proposal back
alter table alerts add column review_reason text;
alter table alerts add column reviewed_at timestamptz;
-- batch checks raise alerts too (the check's batch, for filtering)
alter table alerts add column batch_id uuid;

alter table alerts add constraint alerts_state_valid check (
  state in ('open', 'in_review', 'escalated', 'pending_approval', 'closed_true_match', 'closed_false_positive')
) not valid;

-- list filters: every one is (tenant_id, <column>, seq desc), newest first
create index alerts_tenant_state_seq on alerts (tenant_id, state, seq desc);
create index alerts_tenant_assignee_seq on alerts (tenant_id, assigned_to, seq desc) where assigned_to is not null;
create index alerts_tenant_check on alerts (tenant_id, check_id);
create index alerts_tenant_applicant_seq on alerts (tenant_id, applicant_id, seq desc) where applicant_id is not null;
create index alerts_tenant_flow_seq on alerts (tenant_id, flow_id, seq desc) where flow_id is not null;
create index alerts_tenant_batch_seq on alerts (tenant_id, batch_id, seq desc) where batch_id is not null;
-- the SLA queue: work not yet closed, by due time
create index alerts_tenant_sla on alerts (tenant_id, queue_sla_at) where state not like 'closed%';
