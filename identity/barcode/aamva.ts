// AAMVA DL/ID card design standard, the PDF417 payload on the back of North American driver's licences and ID
// cards (versions 1–10): header `@ LF RS CR ANSI ` (some issuers write `AAMVA`), issuer identification number,
// AAMVA version, jurisdiction version (from version 2), number of subfiles, subfile designators; then the `DL` or
// `ID` subfile of three-letter data elements separated by LF. Pure: never throws (a corrupt payload is an error
// result), imports nothing.

/** The jurisdictions by issuer identification number (AAMVA's IIN list), with their country. */
export const AAMVA_ISSUERS: Readonly<Record<string, { code: string; country: 'USA' | 'CAN' | 'MEX' }>> = {
  '636000': { code: 'VA', country: 'USA' },
  '636001': { code: 'NY', country: 'USA' },
  '636002': { code: 'MA', country: 'USA' },
  '636003': { code: 'MD', country: 'USA' },
  '636004': { code: 'NC', country: 'USA' },
  '636005': { code: 'SC', country: 'USA' },
  '636006': { code: 'CT', country: 'USA' },
  '636007': { code: 'LA', country: 'USA' },
  '636008': { code: 'MT', country: 'USA' },
  '636009': { code: 'NM', country: 'USA' },
  '636010': { code: 'FL', country: 'USA' },
  '636011': { code: 'DE', country: 'USA' },
  '636012': { code: 'ON', country: 'CAN' },
  '636013': { code: 'NS', country: 'CAN' },
  '636014': { code: 'CA', country: 'USA' },
  '636015': { code: 'TX', country: 'USA' },
  '636016': { code: 'NL', country: 'CAN' },
  '636017': { code: 'NB', country: 'CAN' },
  '636018': { code: 'IA', country: 'USA' },
  '636019': { code: 'GU', country: 'USA' },
  '636020': { code: 'CO', country: 'USA' },
  '636021': { code: 'AR', country: 'USA' },
  '636022': { code: 'KS', country: 'USA' },
  '636023': { code: 'OH', country: 'USA' },
  '636024': { code: 'VT', country: 'USA' },
  '636025': { code: 'PA', country: 'USA' },
  '636026': { code: 'AZ', country: 'USA' },
  '636028': { code: 'BC', country: 'CAN' },
  '636029': { code: 'OR', country: 'USA' },
  '636030': { code: 'MO', country: 'USA' },
  '636031': { code: 'WI', country: 'USA' },
  '636032': { code: 'MI', country: 'USA' },
  '636033': { code: 'AL', country: 'USA' },
  '636034': { code: 'ND', country: 'USA' },
  '636035': { code: 'IL', country: 'USA' },
  '636036': { code: 'NJ', country: 'USA' },
  '636037': { code: 'IN', country: 'USA' },
  '636038': { code: 'MN', country: 'USA' },
  '636039': { code: 'NH', country: 'USA' },
  '636040': { code: 'UT', country: 'USA' },
  '636041': { code: 'ME', country: 'USA' },
  '636042': { code: 'SD', country: 'USA' },
  '636043': { code: 'DC', country: 'USA' },
  '636044': { code: 'SK', country: 'CAN' },
  '636045': { code: 'WA', country: 'USA' },
  '636046': { code: 'KY', country: 'USA' },
  '636047': { code: 'HI', country: 'USA' },
  '636048': { code: 'MB', country: 'CAN' },
  '636049': { code: 'NV', country: 'USA' },
  '636050': { code: 'ID', country: 'USA' },
  '636051': { code: 'MS', country: 'USA' },
  '636052': { code: 'RI', country: 'USA' },
  '636053': { code: 'TN', country: 'USA' },
  '636054': { code: 'NE', country: 'USA' },
  '636055': { code: 'GA', country: 'USA' },
  '636058': { code: 'OK', country: 'USA' },
  '636059': { code: 'AK', country: 'USA' },
  '636060': { code: 'WY', country: 'USA' },
  '636061': { code: 'WV', country: 'USA' },
  '636062': { code: 'VI', country: 'USA' },
  '604426': { code: 'PE', country: 'CAN' },
  '604427': { code: 'AS', country: 'USA' },
  '604428': { code: 'QC', country: 'CAN' },
  '604429': { code: 'YT', country: 'CAN' },
  '604430': { code: 'MP', country: 'USA' },
  '604432': { code: 'AB', country: 'CAN' },
};

export interface AamvaAddress {
  street: string | null;
  street2: string | null;
  city: string | null;
  jurisdiction: string | null;
  postal_code: string | null;
}

export interface AamvaFields {
  /** `DL` (driver's licence) or `ID` (identification card) */
  subfile: 'DL' | 'ID';
  aamva_version: number;
  /** null on version 1, which has none */
  jurisdiction_version: number | null;
  issuer_id: string;
  /** the issuing jurisdiction's code (CA, ON …) from the issuer number, else the address's */
  jurisdiction: string | null;
  /** ICAO alpha-3 of the issuing country (USA, CAN, MEX) */
  country: string | null;
  document_number: string | null;
  family_name: string | null;
  first_name: string | null;
  middle_names: string | null;
  /** YYYY-MM-DD */
  birth_date: string | null;
  expiry_date: string | null;
  issue_date: string | null;
  sex: 'M' | 'F' | 'X' | null;
  address: AamvaAddress;
  /** DCF */
  document_discriminator: string | null;
  /** DDA: F = fully compliant (REAL ID), N = non-compliant; null when absent (before version 5) */
  compliance_type: string | null;
  /** every data element as read, by its three-letter id */
  elements: Record<string, string>;
}

export type AamvaResult = { ok: true; fields: AamvaFields } | { ok: false; error: string };

const LF = '\n';
const RS = '\x1e';
const CR = '\r';

interface Header {
  issuer: string;
  version: number;
  jurisdictionVersion: number | null;
  entries: { type: string; offset: number; length: number }[];
  /** index just past the header and designators */
  end: number;
}

/** The header after the compliance indicator: `ANSI ` or `AAMVA` then the numbers. */
function parseHeader(text: string): Header | string {
  const at = text.indexOf('@');
  if (at < 0 || at > 4) return 'no compliance indicator (@)';
  const ansi = /ANSI ?|AAMVA/.exec(text.slice(at, at + 12));
  if (!ansi) return 'no file type (ANSI)';
  let i = at + ansi.index + ansi[0].length;
  const digits = (n: number) => {
    const s = text.slice(i, i + n);
    i += n;
    return /^\d+$/.test(s) ? Number(s) : Number.NaN;
  };
  const issuer = text.slice(i, i + 6);
  if (!/^\d{6}$/.test(issuer)) return 'no issuer identification number';
  i += 6;
  const version = digits(2);
  if (!Number.isInteger(version) || version < 1 || version > 99) return 'no AAMVA version';
  const jurisdictionVersion = version >= 2 ? digits(2) : null;
  const count = digits(2);
  if (!Number.isInteger(count) || count < 1 || count > 20) return 'no number of entries';
  const entries: Header['entries'] = [];
  for (let k = 0; k < count; k++) {
    const type = text.slice(i, i + 2);
    i += 2;
    entries.push({ type, offset: digits(4), length: digits(4) });
  }
  return {
    issuer,
    version,
    jurisdictionVersion: Number.isNaN(jurisdictionVersion) ? null : jurisdictionVersion,
    entries,
    end: i,
  };
}

/** The data elements of the DL or ID subfile: at its designated offset when the subfile is there, else searched
 * after the header (issuers get offsets wrong). */
function subfileElements(
  text: string,
  h: Header,
): { subfile: 'DL' | 'ID'; elements: Record<string, string> } | null {
  const wanted = h.entries.find((e) => e.type === 'DL') ?? h.entries.find((e) => e.type === 'ID');
  const type = (wanted?.type ?? (text.includes('DL', h.end) ? 'DL' : 'ID')) as 'DL' | 'ID';
  let start = wanted && text.slice(wanted.offset, wanted.offset + 2) === type ? wanted.offset : -1;
  if (start < 0) start = text.indexOf(type, h.end);
  if (start < 0) return null;
  const body = text.slice(start + 2);
  const ends = [body.indexOf(CR), body.indexOf(RS)].filter((k) => k >= 0);
  const stop = ends.length ? Math.min(...ends) : -1;
  const elements: Record<string, string> = {};
  for (const raw of (stop < 0 ? body : body.slice(0, stop)).split(LF)) {
    const line = [...raw].filter((c) => c.charCodeAt(0) >= 32).join('');
    if (!/^[A-Z]{3}/.test(line)) continue;
    const id = line.slice(0, 3);
    if (!(id in elements)) elements[id] = line.slice(3).trim();
  }
  return Object.keys(elements).length ? { subfile: type, elements } : null;
}

const pad = (n: number) => String(n).padStart(2, '0');

function calendar(y: number, m: number, d: number): string | null {
  if (!(y >= 1850 && y <= 2200 && m >= 1 && m <= 12 && d >= 1 && d <= 31)) return null;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCMonth() !== m - 1) return null;
  return `${y}-${pad(m)}-${pad(d)}`;
}

/** A date element: MMDDCCYY (United States from version 2) or CCYYMMDD (Canada, and version 1); the other order
 * when the first is no calendar date. */
export function aamvaDate(value: string | undefined, mmddFirst: boolean): string | null {
  const s = (value ?? '').replace(/[^0-9]/g, '');
  if (s.length !== 8) return null;
  const n = (a: number, b: number) => Number(s.slice(a, b));
  const mmdd = () => calendar(n(4, 8), n(0, 2), n(2, 4));
  const ccyy = () => calendar(n(0, 4), n(4, 6), n(6, 8));
  return mmddFirst ? (mmdd() ?? ccyy()) : (ccyy() ?? mmdd());
}

function sexOf(v: string | undefined): AamvaFields['sex'] {
  const s = (v ?? '').trim().toUpperCase();
  if (s === '1' || s === 'M') return 'M';
  if (s === '2' || s === 'F') return 'F';
  if (s === '9' || s === 'X') return 'X';
  return null;
}

const clean = (v: string | undefined): string | null => {
  const s = (v ?? '').replace(/\s+/g, ' ').trim();
  return s && !/^(NONE|UNAVL|UNAVAILABLE)$/i.test(s) ? s : null;
};

/** Names by version: DCS/DAC/DAD from version 4 (DCT given names in versions 2–3), DAB/DAC/DAD or the combined DAA
 * (`LAST,FIRST,MIDDLE`, `$` or space separated too) in version 1. */
function namesOf(e: Record<string, string>): {
  family: string | null;
  first: string | null;
  middle: string | null;
} {
  const family = clean(e.DCS ?? e.DAB);
  let first = clean(e.DAC);
  let middle = clean(e.DAD);
  if (!first && e.DCT) {
    const [f, ...rest] = e.DCT.split(/[,$]|\s+/).filter(Boolean);
    first = clean(f);
    middle ??= clean(rest.join(' '));
  }
  if (!family && e.DAA) {
    const parts = e.DAA.split(/[,$]/).map((p) => p.trim());
    return {
      family: clean(parts[0]),
      first: first ?? clean(parts[1]),
      middle: middle ?? clean(parts.slice(2).join(' ')),
    };
  }
  return { family, first, middle };
}

/** Parses an AAMVA payload; a payload that is not one (or is cut off) gives `{ok: false, error}`. */
export function parseAamva(text: string): AamvaResult {
  try {
    if (typeof text !== 'string' || text.length < 20) return { ok: false, error: 'payload too short' };
    const h = parseHeader(text);
    if (typeof h === 'string') return { ok: false, error: h };
    const sub = subfileElements(text, h);
    if (!sub) return { ok: false, error: 'no DL or ID subfile' };
    const e = sub.elements;
    const issuer = AAMVA_ISSUERS[h.issuer];
    const country = clean(e.DCG)?.toUpperCase() ?? issuer?.country ?? null;
    // US issuers write MMDDCCYY from version 2; Canada and version 1 CCYYMMDD
    const mmddFirst = h.version >= 2 && country !== 'CAN';
    const names = namesOf(e);
    const fields: AamvaFields = {
      subfile: sub.subfile,
      aamva_version: h.version,
      jurisdiction_version: h.jurisdictionVersion,
      issuer_id: h.issuer,
      jurisdiction: issuer?.code ?? clean(e.DAJ),
      country,
      document_number: clean(e.DAQ),
      family_name: names.family,
      first_name: names.first,
      middle_names: names.middle,
      birth_date: aamvaDate(e.DBB, mmddFirst),
      expiry_date: aamvaDate(e.DBA, mmddFirst),
      issue_date: aamvaDate(e.DBD, mmddFirst),
      sex: sexOf(e.DBC),
      address: {
        street: clean(e.DAG),
        street2: clean(e.DAH),
        city: clean(e.DAI),
        jurisdiction: clean(e.DAJ),
        postal_code: clean(e.DAK),
      },
      document_discriminator: clean(e.DCF),
      compliance_type: clean(e.DDA),
      elements: e,
    };
    return { ok: true, fields };
  } catch (err) {
    return { ok: false, error: `unparseable payload: ${(err as Error).message}` };
  }
}

/** What is missing for the payload to identify its holder (empty: it does). */
export function aamvaMissing(f: AamvaFields): string[] {
  const out: string[] = [];
  if (!f.document_number) out.push('document_number');
  if (!f.family_name) out.push('family_name');
  if (!f.first_name) out.push('first_name');
  if (!f.birth_date) out.push('birth_date');
  if (!f.expiry_date) out.push('expiry_date');
  return out;
}

/** Composes an AAMVA payload (test data and the bench render licences from it). `elements` in order; dates are
 * written as given. */
export function composeAamva(opts: {
  issuer: string;
  version: number;
  jurisdictionVersion?: number;
  subfile?: 'DL' | 'ID';
  elements: [string, string][];
  fileType?: 'ANSI ' | 'AAMVA';
}): string {
  const subfile = opts.subfile ?? 'DL';
  const body = `${subfile}${opts.elements.map(([k, v]) => `${k}${v}`).join(LF)}${CR}`;
  const head = `@${LF}${RS}${CR}${opts.fileType ?? 'ANSI '}${opts.issuer}${pad(opts.version)}${
    opts.version >= 2 ? pad(opts.jurisdictionVersion ?? 0) : ''
  }01`;
  const offset = head.length + 10;
  return `${head}${subfile}${String(offset).padStart(4, '0')}${String(body.length).padStart(4, '0')}${body}`;
}
