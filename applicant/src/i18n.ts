import { ar } from './messages/ar';
import { type Catalogue, en, type MessageKey } from './messages/en';
import { es } from './messages/es';

/** The page's languages (docs/journey.md: a link's `locale` is one of these). */
export const CATALOGUES = { en, es, ar } as const satisfies Record<string, Catalogue>;
export type Locale = keyof typeof CATALOGUES;
const RTL: ReadonlySet<Locale> = new Set(['ar']);

let current: Catalogue = en;
let currentLocale: Locale = 'en';

const isLocale = (s: string): s is Locale => Object.hasOwn(CATALOGUES, s);

/** The link's locale when it has one, else the first of the browser's languages (its Accept-Language) that the
 * page speaks, else English. */
export function pickLocale(linkLocale: string | null | undefined, browser: readonly string[]): Locale {
  if (linkLocale && isLocale(linkLocale)) return linkLocale;
  for (const tag of browser) {
    const base = tag.toLowerCase().split('-')[0] ?? '';
    if (isLocale(base)) return base;
  }
  return 'en';
}

/** Switches the catalogue and the document's language and direction. */
export function setLocale(locale: Locale): void {
  current = CATALOGUES[locale];
  currentLocale = locale;
  document.documentElement.lang = locale;
  document.documentElement.dir = RTL.has(locale) ? 'rtl' : 'ltr';
  document.title = current['app.title'];
}

export const locale = (): Locale => currentLocale;

/** The message `key` with `{name}` placeholders filled from `vars`. */
export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  return current[key].replace(/\{(\w+)\}/g, (m, name: string) =>
    vars[name] === undefined ? m : String(vars[name]),
  );
}

/** A message chosen at run time (a reason code, a document type) when the catalogue has it, else `fallback`. */
export function tMaybe(key: string, fallback: MessageKey): string {
  return Object.hasOwn(current, key) ? current[key as MessageKey] : current[fallback];
}

export type { MessageKey };
