/**
 * CSV in and out for the batch upload (RFC 4180: quoted fields with "" escapes and line breaks inside quotes,
 * CRLF or LF, a UTF-8 BOM, comma or semicolon delimiters, detected from the header line).
 */

export interface CsvRow {
  /** the 1-based line of the file the row starts on (quoted line breaks make it differ from the row index) */
  line: number;
  cells: string[];
}

export interface ParsedCsv {
  header: string[];
  rows: CsvRow[];
}

function detectDelimiter(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const count = (c: string) => first.split(c).length - 1;
  return count(';') > count(',') ? ';' : count('\t') > count(',') ? '\t' : ',';
}

export function parseCsv(input: string): ParsedCsv {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const delim = detectDelimiter(text);
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    cells.push(cell);
    cell = '';
    // blank lines are not rows
    if (cells.length > 1 || cells[0] !== '') rows.push({ line: rowLine, cells });
    cells = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === delim) {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else cell += c;
  }
  if (cell !== '' || cells.length) endRow();
  const [head, ...rest] = rows;
  return { header: (head?.cells ?? []).map((h) => h.trim()), rows: rest };
}

function quote(v: string): string {
  return /[",;\r\n]/.test(v) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Rows to CSV text (CRLF line ends, as RFC 4180 and spreadsheet tools expect). */
export function toCsv(rows: (string | number | null | undefined)[][]): string {
  return `${rows.map((r) => r.map((v) => quote(v === null || v === undefined ? '' : String(v))).join(',')).join('\r\n')}\r\n`;
}
