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
      field += chunk[i];
      fieldStarted = true;
      i++;
    }
  }
  if (inQuotes) {
    opts.onIssue({ file: opts.file, line: recordLine, message: 'unterminated quoted field at end of file' });
    field = field.replace(/[\r\n\u001a]+$/, '');
  }
  if (fieldStarted || field.length > 0 || fields.length > 0 || afterQuote) {
    endField();
    yield { fields, line: recordLine };
  }
}
