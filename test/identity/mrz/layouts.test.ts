// MRZ layouts are data: each format's fields tile every line exactly, each check digit sits on a digit field and
// covers ranges inside its lines, and the specimen of each format reads with every check digit valid.
import { describe, expect, it } from 'vitest';
import { checkResults } from '../../../identity/document/mrz/check-digits.js';
import { LAYOUTS } from '../../../identity/document/mrz/layouts.js';
import type { MrzFormat } from '../../../identity/document/types.js';
import { MRVA_LINES, MRVB_LINES, TD1_LINES, TD2_LINES, TD3_LINES } from './specimens.js';

describe('MRZ layouts', () => {
  it.each([
    ['TD3', 2, 44, ['document_number', 'birth_date', 'expiry_date', 'optional_data', 'composite'], TD3_LINES],
    ['TD2', 2, 36, ['document_number', 'birth_date', 'expiry_date', 'composite'], TD2_LINES],
    ['TD1', 3, 30, ['document_number', 'birth_date', 'expiry_date', 'composite'], TD1_LINES],
    ['MRVA', 2, 44, ['document_number', 'birth_date', 'expiry_date'], MRVA_LINES],
    ['MRVB', 2, 36, ['document_number', 'birth_date', 'expiry_date'], MRVB_LINES],
  ] as [MrzFormat, number, number, string[], string[]][])(
    '%s: %i lines of %i characters, check digits %j',
    (format, lines, length, checks, specimen) => {
      const layout = LAYOUTS[format];
      expect(layout).toMatchObject({ format, lines, length });
      expect(layout.checks.map((c) => c.name)).toEqual(checks);
      for (let line = 0; line < lines; line++) {
        const fields = layout.fields.filter((f) => f.line === line).sort((a, b) => a.start - b.start);
        // no gap, no overlap, the whole line
        expect(fields.flatMap((f) => [f.start, f.end])).toEqual([
          0,
          ...fields.slice(1).flatMap((f) => [f.start, f.start]),
          length,
        ]);
      }
      for (const c of layout.checks) {
        for (const r of [...c.over, c.at]) {
          expect(r.line).toBeLessThan(lines);
          expect(r.end).toBeLessThanOrEqual(length);
        }
        const at = layout.fields.find((f) => f.line === c.at.line && f.start === c.at.start);
        expect(at?.name).toMatch(/_check$/);
        expect(at?.end).toBe(c.at.start + 1);
      }
      expect(specimen.map((l) => l.length)).toEqual(new Array(lines).fill(length));
      expect(checkResults(layout, specimen).filter((c) => !c.valid)).toEqual([]);
    },
  );
});
