import { schemaKind, scoreSubjectPair } from './features.js';
import type { ScreenSubject } from './types.js';

/** Pairwise comparison with the same scoring as screen(); schema is the FtM-style schema of the pair. */
export function compare(
  schema: string,
  a: string | ScreenSubject,
  b: string | ScreenSubject,
): { score: number } {
  const sa: ScreenSubject = typeof a === 'string' ? { name: a } : a;
  const sb: ScreenSubject = typeof b === 'string' ? { name: b } : b;
  return { score: scoreSubjectPair(schemaKind(schema), sa, sb) };
}
