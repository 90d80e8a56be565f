-- The applicant's journey (issue 33): the intake fields `phone` and `tax_id` are kept like the e-mail, as a keyed
-- hash (PII_HASH_KEY) and a masked hint for display, never the value itself.
alter table applicants
  add column phone_hash text,
  add column phone_hint text,
  add column tax_id_hash text,
  add column tax_id_hint text;
