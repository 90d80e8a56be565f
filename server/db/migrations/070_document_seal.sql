-- Documents are sealed at `complete` (issue 32): the presigned PUT writes to upload_key; `complete` copies that
-- object to storage_key, which only the service writes; verification stores the sealed bytes' SHA-256 (and size, in
-- size_bytes), and every read of the object checks them. Rows written before have no upload_key (their upload and
-- stored object are one key) and no sha256 (they are read unchecked).
alter table documents
  add column upload_key text,
  add column sha256 text check (sha256 ~ '^[0-9a-f]{64}$');
