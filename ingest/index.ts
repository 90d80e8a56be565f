// Entry point: readSource(format, path, onIssue) streams canonical entities from one list file or directory.
// Format names are a contract with the server and CLI; see the table in each parser module.

import { existsSync } from 'node:fs';
import { readBisDplTsv } from './bis-dpl-tsv.js';
import type { Entity, IssueSink } from './entity.js';
import { readFtmJson } from './ftm-json.js';
import { OFAC_CONS_LAYOUT, OFAC_SDN_LAYOUT, readOfacCsv } from './ofac-sdn-csv.js';
import { readSenzingJson } from './senzing-json.js';
import { readUkCsv } from './uk-csv.js';
import { readUnXml } from './un-xml.js';
import { readUsCslCsv } from './us-csl-csv.js';

export type { Entity, EntityIdentifier, EntityName, IngestIssue, IssueSink } from './entity.js';
export { listBytesRead, pathBytes } from './io.js';

type Reader = (path: string, onIssue: IssueSink) => AsyncIterable<Entity>;

// A Map, not an object literal, so "toString" or "__proto__" are unknown formats rather than prototype hits.
const READERS = new Map<string, Reader>([
  ['ofac_sdn_csv', (p, onIssue) => readOfacCsv(p, OFAC_SDN_LAYOUT, onIssue)],
  ['ofac_cons_csv', (p, onIssue) => readOfacCsv(p, OFAC_CONS_LAYOUT, onIssue)],
  ['un_xml', readUnXml],
  ['ftm_json', readFtmJson],
  ['senzing_json', readSenzingJson],
  ['us_csl_csv', readUsCslCsv],
  ['uk_csv', readUkCsv],
  ['bis_dpl_tsv', readBisDplTsv],
]);

export const FORMATS: readonly string[] = Object.freeze([...READERS.keys()]);

/** Stream the entities of one source. Throws synchronously for an unknown format or a missing path (a wrong
 * file-vs-directory kind throws on first iteration); bad rows and fields never throw, they go to `onIssue`. */
export function readSource(format: string, path: string, onIssue: IssueSink): AsyncIterable<Entity> {
  const reader = READERS.get(format);
  if (reader === undefined) {
    throw new Error(`ingest: unknown format "${format}" (known: ${FORMATS.join(', ')})`);
  }
  if (typeof path !== 'string' || path === '')
    throw new Error(`ingest: no path given for format "${format}"`);
  if (!existsSync(path)) throw new Error(`ingest: path not found for format "${format}": ${path}`);
  return reader(path, onIssue);
}
