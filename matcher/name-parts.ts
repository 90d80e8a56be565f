// The parts of a name written apart (word breaks, middle dots), for the steps that read a whole name written in one
// script (kana-foreign.ts, han-foreign.ts).

/** The non-empty parts of `raw` between runs of `breaks`, when every part matches `word` (an anchored, non-global
 * pattern); else undefined. */
export function partsWhollyIn(raw: string, breaks: RegExp, word: RegExp): string[] | undefined {
  const parts = raw.split(breaks).filter((p) => p.length > 0);
  return parts.every((p) => word.test(p)) ? parts : undefined;
}
