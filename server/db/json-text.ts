/**
 * JSON text made once and used twice. A sync flow's check evidence (the screen's subjects and matches: with hits,
 * most of a flow's JSON, and slow to serialise for its numbers) goes into the flow graph statement's checks
 * parameter and into the flow's answer: both are built here with the same evidence text, serialised the first time
 * it is asked for. The bytes are those JSON.stringify makes of the whole (test/db/json-text.test.ts).
 */

/** A jsonb parameter's JSON text, made already: the pool's jsonb serializer (connectSql) sends it as is. Anywhere
 * else (a pool without that serializer) JSON.stringify meets toJSON and makes the same text, only slower. */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** postgres.js's jsonb serializer, JsonText aware (connectSql's `types`). */
export const serializeJsonb = (x: unknown): string => (x instanceof JsonText ? x.text : JSON.stringify(x));

const texts = new WeakMap<object, string>();

/** JSON.stringify(value), made once per object: the object must not change after the first call (a check's
 * evidence is complete once the check is built, server/checks/recorder.ts buildCheck). */
export function onceJson(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/** What stands for an evidence while the rest is serialised: a string no caller's data holds as an `evidence` value
 * (it starts with a NUL, which JSON writes as \u0000). */
const MARK = '\u0000evidence\u0000';
const MARKED = `"evidence":${JSON.stringify(MARK)}`;

/** JSON.stringify(value), where `rows` (objects inside value, in the order JSON.stringify meets them, none holding
 * another `evidence` key) have an `evidence` object: each evidence's text from onceJson. The rows' evidence is
 * swapped for a mark while value is serialised (synchronously, restored after), then each mark for its text. */
export function withEvidenceJson(value: unknown, rows: readonly { evidence: unknown }[]): string {
  if (!rows.length) return JSON.stringify(value);
  const evidence = rows.map((r) => r.evidence);
  const texts = evidence.map((e) => onceJson(e as object));
  let marked: string;
  try {
    for (const r of rows) r.evidence = MARK;
    marked = JSON.stringify(value);
  } finally {
    rows.forEach((r, i) => {
      r.evidence = evidence[i];
    });
  }
  let out = '';
  let from = 0;
  for (const text of texts) {
    const at = marked.indexOf(MARKED, from);
    if (at < 0) throw new Error('withEvidenceJson: a row is not inside the value');
    out += `${marked.slice(from, at)}"evidence":${text}`;
    from = at + MARKED.length;
  }
  return out + marked.slice(from);
}

/** A jsonb parameter of rows with an `evidence` object (a flow's checks), each evidence's text from onceJson. */
export const evidenceRowsJson = (rows: readonly { evidence: unknown }[]): JsonText =>
  new JsonText(withEvidenceJson(rows, rows));
