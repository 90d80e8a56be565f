/** Polls `fn` until it returns something other than undefined (or false), or fails after timeout_ms. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeout_ms = 60_000,
  interval_ms = 100,
): Promise<T> {
  const until = Date.now() + timeout_ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, interval_ms));
  }
}
