// Accumulates one entity's fields while a parser walks its rows, then validates it: names trimmed,
// whitespace collapsed, deduplicated (case-insensitively, keeping the strongest kind), scripts detected,
// countries mapped to ISO alpha-2 with unknown ones reported, and a primary name guaranteed.

import { lookupCountry } from './countries.js';
import type {
  AmlDataset,
  Entity,
  EntityIdentifier,
  EntityName,
  EntitySchema,
  IngestIssue,
  IssueSink,
  NameKind,
} from './entity.js';
import { normalizeIdentifier } from './identifiers.js';
import { detectScript } from './script.js';

const KIND_RANK: Record<NameKind, number> = { primary: 0, alias: 1, former: 2, weak: 3 };

/** Where a value came from, for issue reports. */
export interface Origin {
  file: string;
  line: number;
}

const MESSY_SPACE = /\s\s|[^\S ]|[\u200b\ufeff]/;

export function cleanText(s: string): string {
  if (!MESSY_SPACE.test(s)) return s.trim();
  return s.replace(/[\s\u200b\ufeff]+/g, ' ').trim();
}

export class EntityDraft {
  readonly source: string;
  readonly sourceId: string;
  schema: EntitySchema;
  private readonly names = new Map<string, EntityName>();
  private readonly order: string[] = [];
  readonly birthDates = new Set<string>();
  readonly birthPlaces = new Set<string>();
  readonly countries = new Set<string>();
  readonly nationalities = new Set<string>();
  private readonly identifiers = new Map<string, EntityIdentifier>();
  readonly programs = new Set<string>();
  readonly datasets = new Set<AmlDataset>();
  gender: 'male' | 'female' | undefined;
  /** whether bare two-letter values are ISO codes (CSL, FtM) rather than abbreviations ("na" = n/a in UN) */
  countryCodes = true;
  private readonly notes: string[] = [];

  constructor(source: string, sourceId: string, schema: EntitySchema) {
    this.source = source;
    this.sourceId = sourceId;
    this.schema = schema;
  }

  addName(raw: string | undefined, kind: NameKind): void {
    if (raw === undefined) return;
    const value = cleanText(raw);
    if (value === '') return;
    const key = value.toLowerCase();
    const prev = this.names.get(key);
    if (prev === undefined) {
      this.names.set(key, { value, kind });
      this.order.push(key);
    } else if (KIND_RANK[kind] < KIND_RANK[prev.kind]) {
      prev.kind = kind;
    }
  }

  hasNames(): boolean {
    return this.names.size > 0;
  }

  /** Country name or code → ISO; reports unknown values with `field`. */
  addCountry(
    raw: string | undefined,
    field: string,
    at: Origin,
    onIssue: IssueSink,
    target?: 'nationality',
  ): void {
    if (raw === undefined) return;
    const r = lookupCountry(raw, this.countryCodes);
    if ('code' in r) (target === 'nationality' ? this.nationalities : this.countries).add(r.code);
    else if ('unknown' in r) onIssue({ ...at, field, message: `unknown country "${cleanText(raw)}"` });
  }

  addNationality(raw: string | undefined, field: string, at: Origin, onIssue: IssueSink): void {
    this.addCountry(raw, field, at, onIssue, 'nationality');
  }

  addIdentifier(type: string, raw: string | undefined, country?: string): void {
    if (raw === undefined) return;
    const value = normalizeIdentifier(raw, type);
    if (value === '') return;
    const key = `${type}\u0000${value}`;
    const prev = this.identifiers.get(key);
    if (prev === undefined) {
      const id: EntityIdentifier = { type, value };
      if (country !== undefined) id.country = country;
      this.identifiers.set(key, id);
    } else if (prev.country === undefined && country !== undefined) {
      prev.country = country;
    }
  }

  addBirthPlace(raw: string | undefined): void {
    if (raw === undefined) return;
    const v = cleanText(raw);
    if (v !== '') this.birthPlaces.add(v);
  }

  addProgram(raw: string | undefined): void {
    if (raw === undefined) return;
    const v = cleanText(raw);
    if (v !== '') this.programs.add(v);
  }

  addNote(raw: string | undefined): void {
    if (raw === undefined) return;
    const v = cleanText(raw);
    if (v !== '' && !this.notes.includes(v)) this.notes.push(v);
  }

  /** The finished entity, or undefined (with an issue) when it has no usable name. */
  finish(at: Origin, onIssue: IssueSink): Entity | undefined {
    const names: EntityName[] = [];
    for (const key of this.order) {
      const n = this.names.get(key)!;
      const script = detectScript(n.value);
      names.push(
        script === undefined ? { value: n.value, kind: n.kind } : { value: n.value, kind: n.kind, script },
      );
    }
    names.sort((a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind]);
    if (names.length === 0) {
      onIssue({ ...at, field: 'name', message: `entity ${this.sourceId} has no name; skipped` });
      return undefined;
    }
    if (names[0]!.kind !== 'primary') {
      // Promote the strongest remaining name (alias before former before weak) rather than drop the entity.
      onIssue({
        ...at,
        field: 'name',
        message: `entity ${this.sourceId} has no primary name; promoted "${names[0]!.value}"`,
      });
      names[0]!.kind = 'primary';
    }
    const e: Entity = {
      entity_id: `${this.source}:${this.sourceId}`,
      source: this.source,
      source_id: this.sourceId,
      schema: this.schema,
      names,
      birth_dates: [...this.birthDates].sort(),
      birth_places: [...this.birthPlaces],
      countries: [...this.countries],
      nationalities: [...this.nationalities],
      identifiers: [...this.identifiers.values()],
      programs: [...this.programs],
      datasets: [...this.datasets],
    };
    if (this.gender !== undefined) e.gender = this.gender;
    if (this.notes.length > 0) e.notes = this.notes.join('\n');
    return e;
  }
}

export type { IngestIssue };
