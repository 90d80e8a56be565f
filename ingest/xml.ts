// A tolerant mini XML parser for small, simple documents (the UN list is ~2 MB, read whole): elements,
// attributes, text, CDATA, comments, processing instructions and the five named plus numeric entities.
// Mismatched closing tags are reported and recovered from rather than thrown. Not for untrusted huge input.

export interface XmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
  /** 1-based line of the start tag */
  line: number;
}

export interface XmlProblem {
  line: number;
  message: string;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (m, ent: string) => {
    if (ent[0] === '#') {
      const cp =
        ent[1] === 'x' || ent[1] === 'X'
          ? Number.parseInt(ent.slice(2), 16)
          : Number.parseInt(ent.slice(1), 10);
      return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return NAMED[ent] ?? m;
  });
}

const ATTR = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

export function parseXml(src: string, onProblem: (p: XmlProblem) => void): XmlElement {
  const root: XmlElement = { tag: '#document', attrs: {}, children: [], text: '', line: 1 };
  const stack: XmlElement[] = [root];
  let i = src.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const advanceLines = (from: number, to: number) => {
    for (let k = src.indexOf('\n', from); k !== -1 && k < to; k = src.indexOf('\n', k + 1)) line++;
  };
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const textEnd = lt === -1 ? src.length : lt;
    if (textEnd > i) {
      stack[stack.length - 1]!.text += decodeEntities(src.slice(i, textEnd));
      advanceLines(i, textEnd);
    }
    if (lt === -1) break;
    let end: number;
    if (src.startsWith('<!--', lt)) {
      end = src.indexOf('-->', lt);
      end = end === -1 ? src.length : end + 3;
    } else if (src.startsWith('<![CDATA[', lt)) {
      end = src.indexOf(']]>', lt);
      const stop = end === -1 ? src.length : end;
      stack[stack.length - 1]!.text += src.slice(lt + 9, stop);
      end = end === -1 ? src.length : end + 3;
    } else if (src.startsWith('<?', lt) || src.startsWith('<!', lt)) {
      end = src.indexOf('>', lt);
      end = end === -1 ? src.length : end + 1;
    } else {
      end = src.indexOf('>', lt);
      if (end === -1) {
        onProblem({ line, message: 'unterminated tag at end of document' });
        break;
      }
      end += 1;
      const body = src.slice(lt + 1, end - 1);
      if (body.startsWith('/')) {
        const tag = body.slice(1).trim();
        // Pop to the matching open element; a stray close tag is reported and ignored.
        let k = stack.length - 1;
        while (k > 0 && stack[k]!.tag !== tag) k--;
        if (k === 0) onProblem({ line, message: `unexpected closing tag </${tag}>` });
        else {
          if (k !== stack.length - 1)
            onProblem({ line, message: `unclosed <${stack[stack.length - 1]!.tag}> before </${tag}>` });
          stack.length = k;
        }
      } else {
        const selfClosing = body.endsWith('/');
        const inner = selfClosing ? body.slice(0, -1) : body;
        const m = /^\s*([^\s/>]+)/.exec(inner);
        if (m) {
          const el: XmlElement = { tag: m[1]!, attrs: {}, children: [], text: '', line };
          for (const a of inner.slice(m[0].length).matchAll(ATTR))
            el.attrs[a[1]!] = decodeEntities(a[3] ?? a[4] ?? '');
          stack[stack.length - 1]!.children.push(el);
          if (!selfClosing) stack.push(el);
        } else {
          onProblem({ line, message: 'malformed tag' });
        }
      }
    }
    advanceLines(lt, end);
    i = end;
  }
  if (stack.length > 1)
    onProblem({ line, message: `unclosed <${stack[stack.length - 1]!.tag}> at end of document` });
  return root;
}

export function child(el: XmlElement | undefined, tag: string): XmlElement | undefined {
  return el?.children.find((c) => c.tag === tag);
}

export function childrenOf(el: XmlElement | undefined, tag: string): XmlElement[] {
  return el === undefined ? [] : el.children.filter((c) => c.tag === tag);
}

/** Trimmed text of a direct child, undefined when absent or blank. */
export function textOf(el: XmlElement | undefined, tag: string): string | undefined {
  const t = child(el, tag)?.text.trim();
  return t === undefined || t === '' ? undefined : t;
}
