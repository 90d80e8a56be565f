/** What the page tells its embedder (docs/journey.md "The hosted page"): a message to the parent window, only to
 * the tenant's allowed origins (written into the page by the server, as its frame-ancestors), and the redirect. */

export type Outcome = 'submitted' | 'cancelled';

function embedOrigins(): string[] {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="veriscreen-embed-origins"]');
  return (meta?.content ?? '').split(/\s+/).filter((o) => /^https?:\/\/[^\s/]+$/.test(o));
}

/** Posts to the parent once per allowed origin: the browser delivers it only when the parent is that origin. */
export function notifyParent(flowId: string, status: Outcome): void {
  if (window.parent === window) return;
  const message = { type: 'veriscreen.verification', flow_id: flowId, status };
  for (const origin of embedOrigins()) window.parent.postMessage(message, origin);
}

/** `redirect_url` with the flow id and the outcome, and nothing personal. */
export function redirectTarget(redirectUrl: string, flowId: string, status: Outcome): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('flow_id', flowId);
  url.searchParams.set('status', status);
  return url.toString();
}
