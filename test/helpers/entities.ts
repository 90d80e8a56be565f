import type { Entity, EntityName, EntitySchema } from '../../ingest/entity.js';

/** A listed person with one primary name and nothing else: `<source>:<id>`, in the sanctions dataset. */
export function personEntity(source: string, id: string, name: string): Entity {
  return {
    entity_id: `${source}:${id}`,
    source,
    source_id: id,
    schema: 'Person',
    names: [{ value: name, kind: 'primary' }],
    birth_dates: [],
    birth_places: [],
    countries: [],
    nationalities: [],
    identifiers: [],
    programs: [],
    datasets: ['sanctions'],
  };
}

/** A listed entity of `schema` (OFAC SDN unless `extra.source` says otherwise) with these names: a string is the
 * primary name when first, else an alias. */
export function listedEntity(
  id: string,
  schema: EntitySchema,
  names: (string | EntityName)[],
  extra: Partial<Entity> = {},
): Entity {
  const source = extra.source ?? 'us_ofac_sdn';
  return {
    entity_id: `${source}:${id}`,
    source,
    source_id: id,
    schema,
    names: names.map((n, i) =>
      typeof n === 'string' ? { value: n, kind: i === 0 ? 'primary' : 'alias' } : n,
    ),
    birth_dates: [],
    birth_places: [],
    countries: [],
    nationalities: [],
    identifiers: [],
    programs: ['SDGT'],
    datasets: ['sanctions'],
    ...extra,
  };
}
