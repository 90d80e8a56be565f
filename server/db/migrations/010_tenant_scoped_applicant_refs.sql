-- Issue 12 item 1: a row may only name an applicant of its own tenant. The single-column foreign keys let tenant B's
-- batch check point at tenant A's applicant, which then blocked A's erasure forever. The references become
-- (tenant_id, applicant_id) → applicants (tenant_id, id): a cross-tenant reference is impossible from now on, and
-- deleting an applicant is only ever blocked by rows of its own tenant (which the purge deletes first).
-- NOT VALID: rows written before this migration are not re-checked (a row of another tenant naming an applicant
-- can no longer block that applicant's erasure either way; it stays as that tenant's own record).
alter table applicants add constraint applicants_tenant_id_id_key unique (tenant_id, id);

alter table flows drop constraint if exists flows_applicant_id_fkey;
alter table flows add constraint flows_tenant_applicant_fkey
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id) not valid;

alter table checks drop constraint if exists checks_applicant_id_fkey;
alter table checks add constraint checks_tenant_applicant_fkey
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id) not valid;

alter table alerts drop constraint if exists alerts_applicant_id_fkey;
alter table alerts add constraint alerts_tenant_applicant_fkey
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id) not valid;

alter table documents drop constraint if exists documents_applicant_id_fkey;
alter table documents add constraint documents_tenant_applicant_fkey
  foreign key (tenant_id, applicant_id) references applicants (tenant_id, id) not valid;
