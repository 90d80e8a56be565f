// The ePassport trust store (docs/decisions/identity.md, "Chip verification"): CSCA certificates and CRLs the
// operator loads, deployment-wide and versioned. Uploads are read on the trust pool's thread; every change that
// adds or removes an entry is one new version.
import type { AnchorsByCountry } from '../../identity/chip/index.js';
import type { TrustEntryDraft, TrustResult, TrustTask } from '../../identity/chip/trust-worker.js';
import type { TrustStoreEntry } from '../../schemas/chips.js';
import { json, type Sql, transaction } from '../db/sql.js';
import { InvalidContent } from '../domain-errors.js';
import { ApiError } from '../errors.js';
import type { TrustPool } from './trust-pool.js';

export interface TrustStoreDeps {
  sql: Sql;
  pool: TrustPool;
}

interface EntryRow {
  id: string;
  kind: 'csca' | 'crl';
  country: string;
  subject: string;
  issuer: string;
  serial_number: string | null;
  not_before: Date;
  not_after: Date | null;
  fingerprint_sha256: string;
  source: 'master_list' | 'upload';
  source_details: Record<string, unknown>;
  added_in_version: number;
  removed_in_version: number | null;
}

const COLUMNS = (sql: Sql) => sql`
  id, kind, country, subject, issuer, serial_number, not_before, not_after, fingerprint_sha256, source,
  source_details, added_in_version, removed_in_version`;

export function entryOut(r: EntryRow, now = new Date()): TrustStoreEntry {
  const valid =
    r.kind === 'csca'
      ? r.not_before <= now && (!r.not_after || now <= r.not_after)
      : !r.not_after || now <= r.not_after;
  return {
    ...r,
    not_before: r.not_before.toISOString(),
    not_after: r.not_after?.toISOString() ?? null,
    valid_now: valid,
  };
}

export async function currentVersion(sql: Sql): Promise<number> {
  const [v] = await sql<
    { version: number }[]
  >`select coalesce(max(version), 0)::int as version from trust_store_versions`;
  return v?.version ?? 0;
}

/** The current anchors grouped by country, as the identity worker takes them (read again only when the version
 * changed). */
export class TrustAnchors {
  private cached: AnchorsByCountry | undefined;
  constructor(private readonly sql: Sql) {}

  async current(): Promise<AnchorsByCountry> {
    const version = await currentVersion(this.sql);
    if (this.cached?.version === version) return this.cached;
    const rows = await this.sql<{ kind: 'csca' | 'crl'; country: string; der: Buffer }[]>`
      select kind, country, der from trust_store_entries where removed_in_version is null order by added_in_version`;
    const countries: AnchorsByCountry['countries'] = {};
    for (const r of rows) {
      const c = countries[r.country] ?? { cscas: [], crls: [] };
      countries[r.country] = c;
      (r.kind === 'csca' ? c.cscas : c.crls).push(new Uint8Array(r.der));
    }
    this.cached = { version, countries };
    return this.cached;
  }
}

/** The store as of `version` (default: the current one), optionally one country's or one kind's entries. */
export async function listEntries(
  sql: Sql,
  q: { country?: string | undefined; kind?: 'csca' | 'crl' | undefined; version?: number | undefined },
) {
  const version = q.version ?? (await currentVersion(sql));
  const rows = await sql<EntryRow[]>`
    select ${COLUMNS(sql)} from trust_store_entries
    where added_in_version <= ${version} and (removed_in_version is null or removed_in_version > ${version})
      ${q.country ? sql`and country = ${q.country.toUpperCase()}` : sql``}
      ${q.kind ? sql`and kind = ${q.kind}` : sql``}
    order by country, kind, not_before, subject`;
  return { version, items: rows.map((r) => entryOut(r)) };
}

export async function listVersions(sql: Sql) {
  const rows = await sql<
    { version: number; change: string; details: Record<string, unknown>; created_at: Date }[]
  >`
    select version, change, details, created_at from trust_store_versions order by version desc limit 500`;
  return { items: rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() })) };
}

type Change = 'master_list_loaded' | 'csca_added' | 'crl_added' | 'entry_removed';

/** Adds `drafts` not held already and removes `removeIds`, as one new version (none when nothing changes). */
async function applyChange(
  sql: Sql,
  change: Change,
  details: Record<string, unknown>,
  drafts: TrustEntryDraft[],
  source: { source: 'master_list' | 'upload'; details: Record<string, unknown> },
  removeIds: string[] = [],
) {
  return transaction(sql, async (tx) => {
    // one writer at a time: versions are consecutive and a fingerprint is current at most once
    await tx`select pg_advisory_xact_lock(hashtext('veriscreen:trust_store'))`;
    const held = new Set(
      (
        await tx<{ fingerprint_sha256: string }[]>`
          select fingerprint_sha256 from trust_store_entries
          where removed_in_version is null and fingerprint_sha256 = any(${drafts.map((d) => d.fingerprint_sha256)})`
      ).map((r) => r.fingerprint_sha256),
    );
    const unique = new Map(
      drafts.filter((d) => !held.has(d.fingerprint_sha256)).map((d) => [d.fingerprint_sha256, d]),
    );
    const toRemove = removeIds.length
      ? await tx<{ id: string }[]>`
          select id from trust_store_entries where id = any(${removeIds}::uuid[]) and removed_in_version is null`
      : [];
    const version = await currentVersion(tx);
    if (!unique.size && !toRemove.length) {
      return { version, added: [], already_present: drafts.length, removed: [] };
    }
    const next = version + 1;
    const summary = { ...details, added: unique.size, removed: toRemove.length };
    await tx`insert into trust_store_versions (version, change, details) values (${next}, ${change}, ${json(tx, summary)})`;
    const added = unique.size
      ? await tx<EntryRow[]>`
          insert into trust_store_entries ${tx(
            [...unique.values()].map((d) => ({
              ...d,
              der: Buffer.from(d.der),
              not_before: new Date(d.not_before),
              not_after: d.not_after ? new Date(d.not_after) : null,
              source: source.source,
              source_details: json(tx, source.details),
              added_in_version: next,
            })),
          )}
          returning ${COLUMNS(tx)}`
      : [];
    const removed = toRemove.length
      ? await tx<EntryRow[]>`
          update trust_store_entries set removed_in_version = ${next}
          where id = any(${toRemove.map((r) => r.id)}::uuid[]) returning ${COLUMNS(tx)}`
      : [];
    return {
      version: next,
      added: added.map((r) => entryOut(r)),
      already_present: drafts.length - unique.size,
      removed: removed.map((r) => entryOut(r)),
    };
  });
}

async function read(deps: TrustStoreDeps, task: TrustTask): Promise<Extract<TrustResult, { ok: true }>> {
  const r = await deps.pool.run(task);
  if (!r.ok) throw new InvalidContent('trust_store_file_invalid', r.message, { reason: r.code });
  return r;
}

/** Loads a CSCA master list: its signature verified on the trust pool, its CSCAs added. */
export async function loadMasterList(deps: TrustStoreDeps, bytes: Uint8Array, anchors: TrustAnchors) {
  const r = await read(deps, { kind: 'master_list', bytes, store: await anchors.current() });
  const ml = r.master_list;
  const out = await applyChange(
    deps.sql,
    'master_list_loaded',
    { signer: ml?.signer, certificates: r.entries.length, skipped: r.skipped.length },
    r.entries,
    { source: 'master_list', details: { signer: ml?.signer, signing_time: ml?.signing_time ?? null } },
  );
  return { ...out, skipped: r.skipped, ...(ml ? { master_list: ml } : {}) };
}

/** Adds one CSCA certificate (DER or PEM). */
export async function addCsca(deps: TrustStoreDeps, bytes: Uint8Array) {
  const r = await read(deps, { kind: 'csca', bytes });
  const subject = r.entries[0]?.subject;
  return {
    ...(await applyChange(deps.sql, 'csca_added', { subject }, r.entries, { source: 'upload', details: {} })),
    skipped: [],
  };
}

/** Adds one CRL (DER or PEM), which a CSCA of the store must have signed. */
export async function addCrl(deps: TrustStoreDeps, bytes: Uint8Array, anchors: TrustAnchors) {
  const r = await read(deps, { kind: 'crl', bytes, store: await anchors.current() });
  const issuer = r.entries[0]?.issuer;
  return {
    ...(await applyChange(deps.sql, 'crl_added', { issuer }, r.entries, { source: 'upload', details: {} })),
    skipped: [],
  };
}

export async function removeEntry(deps: TrustStoreDeps, id: string) {
  const [e] = await deps.sql<{ subject: string; removed_in_version: number | null }[]>`
    select subject, removed_in_version from trust_store_entries where id = ${id}`;
  if (!e || e.removed_in_version !== null)
    throw new ApiError('not_found', { message: 'No current trust store entry with this id' });
  return {
    ...(await applyChange(
      deps.sql,
      'entry_removed',
      { id, subject: e.subject },
      [],
      { source: 'upload', details: {} },
      [id],
    )),
    skipped: [],
  };
}
