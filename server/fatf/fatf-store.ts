import type { FatfListings } from '../../schemas/datasets.js';
import type { Sql } from '../db/sql.js';

export interface FatfState {
  version: number;
  listings: FatfListings;
}

export async function latestFatf(sql: Sql): Promise<FatfState> {
  const [row] = await sql<{ version: number; listings: FatfListings }[]>`
    select version, listings from fatf_listings order by version desc limit 1`;
  return row ?? { version: 0, listings: {} };
}

/** Each PUT stores a new version: earlier listings stay readable for audit. */
export async function putFatf(sql: Sql, listings: FatfListings): Promise<FatfState> {
  const [row] = await sql<{ version: number; listings: FatfListings }[]>`
    insert into fatf_listings (listings) values (${sql.json(listings)}) returning version, listings`;
  if (!row) throw new Error('fatf insert returned nothing');
  return row;
}
