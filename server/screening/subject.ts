import type { ScreenSubject } from '../../matcher/types.js';
import type { SubjectIn } from '../../schemas/subjects.js';

/** The matcher's view of a stored subject: reference fields dropped, country codes upper-cased. */
export function toScreenSubject(s: SubjectIn): ScreenSubject {
  const { ref: _ref, reference_id: _rid, role: _role, ...rest } = s;
  return {
    ...rest,
    ...(rest.nationality ? { nationality: rest.nationality.toUpperCase() } : {}),
    ...(rest.country ? { country: rest.country.toUpperCase() } : {}),
  };
}
