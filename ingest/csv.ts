// A small streaming CSV/TSV tokenizer. Handles quoted fields (with "" escapes and embedded delimiters or
// newlines), CRLF/LF/CR line ends, a UTF-8 BOM, and OFAC's trailing 0x1A (SUB) byte. It is tolerant: a quote
// inside an unquoted field is kept literally, and a closing quote followed by junk keeps the junk. An
// unterminated quote at EOF is reported, and the partial record is still returned.

import type { IssueSink } from './entity.js';

export interface CsvRecord {
  fields: string[];
  /** 1-based physical line where the record starts */
  line: number;
}

export interface CsvOptions {
  delimiter?: string;
  /** file name for issue reports */
  file: string;
  onIssue: IssueSink;
}

const QUOTE = 34;
const CR = 13;
const LF = 10;
const SUB = 0x1a;
const BOM = 0xfeff;

export async function* readCsv(chunks: AsyncIterable<string>, opts: CsvOptions): AsyncGenerator<CsvRecord> {
  const delim = (opts.delimiter ?? ',').charCodeAt(0);
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let afterQuote = false; // just closed a quoted field
  let fieldStarted = false; // anything seen in the current record
  let line = 1;
  let recordLine = 1;
  let pendingCR = false;
  let first = true;

  const endField = () => {
    fields.push(field);
    field = '';
    afterQuote = false;
  };

  for await (const chunk of chunks) {
    let i = 0;
    const n = chunk.length;
    if (first && n > 0) {
      first = false;
      if (chunk.charCodeAt(0) === BOM) i = 1;
    }
    while (i < n) {
      const c = chunk.charCodeAt(i);
      if (pendingCR) {
        pendingCR = false;
        if (c === LF) {
          i++;
          continue;
        }
      }
      if (inQuotes) {
        if (c === QUOTE) {
          if (i + 1 < n) {
            if (chunk.charCodeAt(i + 1) === QUOTE) {
              field += '"';
              i += 2;
              continue;
            }
            inQuotes = false;
            afterQuote = true;
            i++;
            continue;
          }
          // Quote at chunk end: we cannot see whether it is doubled; peek by deferring.
          inQuotes = false;
          afterQuote = true;
          i++;
          continue;
        }
        // Fast path: copy up to the next quote.
        let j = chunk.indexOf('"', i);
        if (j === -1) j = n;
        const piece = chunk.slice(i, j);
        for (let k = 0; k < piece.length; k++) {
          const pc = piece.charCodeAt(k);
          if (pc === LF || (pc === CR && piece.charCodeAt(k + 1) !== LF)) line++;
        }
        field += piece;
        i = j;
        continue;
      }
      if (afterQuote && c === QUOTE) {
        // A doubled quote split across chunks: `..."` | `"...` — resume the quoted field.
        field += '"';
        inQuotes = true;
        afterQuote = false;
        i++;
        continue;
      }
      if (c === delim) {
        endField();
        fieldStarted = true;
        i++;
        continue;
      }
      if (c === CR || c === LF) {
        if (fieldStarted || field.length > 0 || fields.length > 0 || afterQuote) {
          endField();
          const rec = fields;
          fields = [];
          fieldStarted = false;
          if (!(rec.length === 1 && rec[0] === '\u001a')) yield { fields: rec, line: recordLine };
        }
        line++;
        recordLine = line;
        if (c === CR) pendingCR = true;
        i++;
        continue;
      }
      if (c === QUOTE && field.length === 0 && !afterQuote) {
        inQuotes = true;
        fieldStarted = true;
        i++;
        continue;
      }
      if (c === SUB && field.length === 0 && fields.length === 0 && !fieldStarted) {
        // OFAC end-of-file marker.
        i++;
        continue;
      }
      // Unquoted text: copy up to the next delimiter, quote or line end in one slice (per-char concatenation
      // dominated GC time on the 5 MB files).
      let j = i + 1;
      while (j < n) {
        const cj = chunk.charCodeAt(j);
        if (cj === delim || cj === CR || cj === LF || cj === QUOTE) break;
        j++;
      }
      field += chunk.slice(i, j);
      fieldStarted = true;
      i = j;
    }
  }
  if (inQuotes) {
    opts.onIssue({ file: opts.file, line: recordLine, message: 'unterminated quoted field at end of file' });
    // Drop the line end and OFAC's SUB byte that the open quote swallowed.
    while (field.endsWith('\n') || field.endsWith('\r') || field.endsWith('\u001a'))
      field = field.slice(0, -1);
  }
  if (fieldStarted || field.length > 0 || fields.length > 0 || afterQuote) {
    endField();
    yield { fields, line: recordLine };
  }
}

export interface CsvRow {
  /** cells by header name; missing trailing cells are '' */
  get: (column: string) => string;
  line: number;
}

/** Records of a CSV/TSV with a header row. Rows with a different cell count are reported and skipped; a
 * header lacking `required` columns is reported and nothing is read. */
export async function* readCsvRows(
  chunks: AsyncIterable<string>,
  opts: CsvOptions & { required: readonly string[] },
): AsyncGenerator<CsvRow> {
  let index: Map<string, number> | undefined;
  let width = 0;
  for await (const rec of readCsv(chunks, opts)) {
    if (index === undefined) {
      const header = rec.fields.map((h) => h.trim());
      const missing = opts.required.filter((k) => !header.includes(k));
      if (missing.length > 0) {
        opts.onIssue({
          file: opts.file,
          line: rec.line,
          message: `header lacks columns ${missing.join(', ')}; nothing read`,
        });
        return;
      }
      index = new Map(header.map((h, i) => [h, i]));
      width = header.length;
      continue;
    }
    if (rec.fields.length !== width) {
      opts.onIssue({
        file: opts.file,
        line: rec.line,
        message: `expected ${width} columns, found ${rec.fields.length}; row skipped`,
      });
      continue;
    }
    const fields = rec.fields;
    const idx = index;
    yield { get: (c) => fields[idx.get(c) ?? -1] ?? '', line: rec.line };
  }
}

/** Parses a whole CSV text held in memory (quoted fields, doubled quotes, CRLF); blank lines are dropped. For
 * small files such as benchmark tables: list files go through the streaming readCsv. */
export function parseCsvText(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQ = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (inQ) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQ = false;
      } else field += ch;
    } else if (ch === '"') inQ = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field.length || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.length > 1 || (r[0] ?? '') !== '');
}

/** A CSV text with a header line, as objects keyed by the header. */
export function parseCsvTable(text: string): Record<string, string>[] {
  const rows = parseCsvText(text);
  const head = rows[0] ?? [];
  return rows.slice(1).map((r) => Object.fromEntries(head.map((h, i) => [h, r[i] ?? ''])));
}
