// Hand-labelled links for the precision of consolidation (docs/matching.md §8): each pair was read on both lists
// (names, dates, places, identifiers, remarks) and judged the same entity or not.
export interface LabelledLink {
  a: string;
  b: string;
  same: boolean;
  note: string;
}

export const LABELLED_LINKS: readonly LabelledLink[] = [];
