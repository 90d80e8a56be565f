// What one screen may match (datasets, sources, schemas, weak aliases), and the per-thread scope cache that turns a
// scope into one bit per name, tested at each posting retrieval walks.
import { AML_DATASETS, ENTITY_SCHEMAS } from '../ingest/entity.js';
import { typePenalty } from './features.js';
import type { IndexView } from './index-view.js';
import { infoDatasets, infoKind, infoSchema, infoSource, NAME_KINDS, packNameInfo } from './layout.js';
import type { ScreenOptions, ScreenSubject } from './types.js';

/** Scope filters (one bit per name each) kept per thread: 64 × 12 KB on the real lists, 64 × 160 KB at 1.3M names. */
const SCOPES_CACHED = 64;
const WEAK_KIND = NAME_KINDS.indexOf('weak');

export interface Scope {
  dsMask: number;
  srcAllowed: Uint8Array;
  schemaPen: (number | undefined)[];
  schemaOk: Uint8Array;
  allowWeak: boolean;
}

/** What the policy and the subject let through: datasets as a bit mask, allowed sources, schema penalties. */
export function scopeOf(view: IndexView, subject: ScreenSubject, options: ScreenOptions): Scope {
  const policy = options.policy;
  let dsMask = 0;
  for (const d of options.datasets) {
    const i = AML_DATASETS.indexOf(d);
    if (i >= 0) dsMask |= 1 << i;
  }
  const srcAllowed = new Uint8Array(view.sources.length);
  for (let i = 0; i < view.sources.length; i++) {
    const s = view.sources[i]!;
    const inc = policy.include_sources.length === 0 || policy.include_sources.includes(s);
    srcAllowed[i] = inc && !policy.exclude_sources.includes(s) ? 1 : 0;
  }
  const schemaPen: (number | undefined)[] = ENTITY_SCHEMAS.map((s) => typePenalty(subject.type, s));
  const schemaOk = new Uint8Array(schemaPen.length);
  for (let i = 0; i < schemaPen.length; i++) schemaOk[i] = schemaPen[i] === undefined ? 0 : 1;
  return { dsMask, srcAllowed, schemaPen, schemaOk, allowWeak: policy.include_weak_aliases };
}

/** Per thread: each name's filter facts packed in one word (one random read per posting instead of five: layout.ts
 * PACK), and the scopes met so far as one bit per name (policies and dataset sets repeat from query to query). */
export class ScopeCache {
  private readonly nNames: number;
  private readonly nameInfo: Uint32Array;
  private readonly bitsByScope = new Map<string, Uint32Array>();

  constructor(view: IndexView) {
    this.nNames = view.nNames;
    this.nameInfo = new Uint32Array(Math.max(1, view.nNames));
    for (let i = 0; i < view.nNames; i++) {
      const e = view.nameEntity[i]!;
      this.nameInfo[i] = packNameInfo(
        view.nameKind[i]!,
        view.entSchema[e]!,
        view.entDatasets[e]!,
        view.entSource[e]!,
      );
    }
  }

  /** One bit per name: in the scope (datasets, sources, schemas, weak aliases) or not. */
  allowedBits(scope: Scope): Uint32Array {
    const { dsMask, srcAllowed, schemaOk, allowWeak } = scope;
    const weakKind = allowWeak ? -1 : WEAK_KIND;
    let key = `${dsMask}|${weakKind}|`;
    for (let i = 0; i < srcAllowed.length; i++) key += srcAllowed[i] === 1 ? '1' : '0';
    for (let i = 0; i < schemaOk.length; i++) key += schemaOk[i] === 1 ? '1' : '0';
    let bits = this.bitsByScope.get(key);
    if (bits === undefined) {
      const nameInfo = this.nameInfo;
      bits = new Uint32Array((this.nNames >>> 5) + 1);
      for (let i = 0; i < this.nNames; i++) {
        const info = nameInfo[i]!;
        if (
          infoKind(info) !== weakKind &&
          (infoDatasets(info) & dsMask) !== 0 &&
          srcAllowed[infoSource(info)] === 1 &&
          schemaOk[infoSchema(info)] === 1
        )
          bits[i >>> 5]! |= 1 << (i & 31);
      }
      // tenants' policies and dataset sets give a few scopes each: keep the last SCOPES_CACHED, oldest out first
      if (this.bitsByScope.size >= SCOPES_CACHED)
        this.bitsByScope.delete(this.bitsByScope.keys().next().value!);
      this.bitsByScope.set(key, bits);
    }
    return bits;
  }
}
