import { useEffect, useState } from 'preact/hooks';

/** A tiny history router: paths under /dashboard, e.g. /dashboard/alerts/<id> → ['alerts', '<id>']. */
export const BASE = '/dashboard';

export interface Location {
  parts: string[];
  query: URLSearchParams;
}

function read(): Location {
  const path = window.location.pathname.startsWith(BASE)
    ? window.location.pathname.slice(BASE.length)
    : window.location.pathname;
  return {
    parts: path
      .split('/')
      .filter(Boolean)
      .map((p) => decodeURIComponent(p)),
    query: new URLSearchParams(window.location.search),
  };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

export function href(path: string): string {
  return `${BASE}${path.startsWith('/') ? path : `/${path}`}`;
}

export function navigate(path: string, opts: { replace?: boolean } = {}): void {
  const url = href(path);
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const l of listeners) l();
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const l = () => setLoc(read());
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return loc;
}

/** Same-document navigation for plain left clicks on in-app links (others open normally). */
export function onLinkClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest('a');
  if (!a || a.target || !a.getAttribute('href')?.startsWith(BASE)) return;
  e.preventDefault();
  const url = new URL(a.href);
  navigate(url.pathname.slice(BASE.length) + url.search);
}
