import type { Entity } from '../../ingest/entity.js';

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
