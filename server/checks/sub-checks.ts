// Sub-checks as a table: a check that is made of sub-checks (document, selfie) lists them as `{name, reason_code,
// run}` rows, and one runner records each with its value and raises its reason code when it fails. A new sub-check
// is one row (docs/architecture.md "Where things go").

/** One sub-check of a check, as evidence: `passed` null = could not be evaluated. */
export interface SubCheck {
  name: string;
  passed: boolean | null;
  value: unknown;
  expected?: unknown;
  reason_code?: string;
  error?: string;
}

/** What a sub-check found. */
export interface SubCheckResult {
  passed: boolean | null;
  value: unknown;
  expected?: unknown;
  /** the reason code when it differs from the row's (one sub-check, two causes) */
  reason_code?: string;
  /** why it could not be evaluated (a read error) */
  error?: string;
  /** whether a failure raises the reason code (default true): a reading not accepted records what it says
   * without letting it reject */
  raise?: boolean;
}

export interface SubCheckDef<Ctx> {
  name: string;
  /** raised when the sub-check fails */
  reason_code: string;
  /** null: the sub-check does not apply here and is not recorded */
  run(ctx: Ctx): SubCheckResult | null;
}

/** Runs a table of sub-checks in order: every result recorded, the reason codes of failures raised (once each). */
export function runSubChecks<Ctx>(
  table: readonly SubCheckDef<Ctx>[],
  ctx: Ctx,
): { subs: SubCheck[]; signals: string[] } {
  const subs: SubCheck[] = [];
  const signals = new Set<string>();
  for (const def of table) {
    const r = def.run(ctx);
    if (!r) continue;
    const reason = r.reason_code ?? def.reason_code;
    subs.push({
      name: def.name,
      passed: r.passed,
      value: r.value,
      ...(r.expected === undefined ? {} : { expected: r.expected }),
      reason_code: reason,
      ...(r.error === undefined ? {} : { error: r.error }),
    });
    if (r.passed === false && r.raise !== false) signals.add(reason);
  }
  return { subs, signals: [...signals] };
}
