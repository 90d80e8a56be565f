import { describe, expect, it } from 'vitest';
import { countryCode, lookupCountry } from '../../ingest/countries.js';
import { readCsv } from '../../ingest/csv.js';
import { parseDate, parseDateExpr } from '../../ingest/dates.js';
import type { IngestIssue } from '../../ingest/entity.js';
import { normalizeIdentifier } from '../../ingest/identifiers.js';
import { detectScript } from '../../ingest/script.js';

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function tokenize(text: string, size: number, delimiter = ','): Promise<[string[][], IngestIssue[]]> {
  const issues: IngestIssue[] = [];
  const out: string[][] = [];
  for await (const r of readCsv(chunked(text, size), {
    file: 't.csv',
    onIssue: (i) => issues.push(i),
    delimiter,
  })) {
    out.push(r.fields);
  }
  return [out, issues];
}

describe('csv tokenizer', () => {
  const text =
    '\ufeffa,"b, with comma","say ""hi"""\r\n1,-0- ,"multi\r\nline"\r\n\r\nx,"",y\n"q""",z,\r\n\u001a';
  const expected = [
    ['a', 'b, with comma', 'say "hi"'],
    ['1', '-0- ', 'multi\r\nline'],
    ['x', '', 'y'],
    ['q"', 'z', ''],
  ];

  it('handles quotes, CRLF, BOM, blank lines and the OFAC 0x1A byte at any chunk size', async () => {
    for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
      const [rows, issues] = await tokenize(text, size);
      expect(rows, `chunk size ${size}`).toEqual(expected);
      expect(issues).toEqual([]);
    }
  });

  it('reports line numbers of record starts', async () => {
    const lines: number[] = [];
    for await (const r of readCsv(chunked(text, 3), { file: 't', onIssue: () => {} })) lines.push(r.line);
    expect(lines).toEqual([1, 2, 5, 6]);
  });

  it('tolerates stray quotes and reports an unterminated quote', async () => {
    const [rows, issues] = await tokenize('a b"c,d\r\n"open,end\r\n\u001a', 4);
    expect(rows).toEqual([['a b"c', 'd'], ['open,end']]);
    expect(issues).toEqual([{ file: 't.csv', line: 2, message: 'unterminated quoted field at end of file' }]);
  });

  it('splits on tabs for TSV', async () => {
    const [rows] = await tokenize('"A"\t"B, C"\t\n"1"\t""\t"3"\n', 5, '\t');
    expect(rows).toEqual([
      ['A', 'B, C', ''],
      ['1', '', '3'],
    ]);
  });
});

describe('dates', () => {
  it('keeps partial precision and validates', () => {
    expect(parseDate('07 Oct 1952')).toBe('1952-10-07');
    expect(parseDate('Oct 1952')).toBe('1952-10');
    expect(parseDate('1952')).toBe('1952');
    expect(parseDate('1952-10-07T00:00:00')).toBe('1952-10-07');
    expect(parseDate('1952-1-7')).toBe('1952-01-07');
    expect(parseDate('29/02/2000')).toBe('2000-02-29');
    expect(parseDate('02/28/2001', 'mdy')).toBe('2001-02-28');
    expect(parseDate('October 7, 1952')).toBe('1952-10-07');
    expect(parseDate('31 Feb 1970')).toBeUndefined();
    expect(parseDate('13/13/2000')).toBeUndefined();
    expect(parseDate('0201')).toBeUndefined();
    expect(parseDate('soon')).toBeUndefined();
  });

  it('expands ranges and circa', () => {
    expect(parseDateExpr('circa 1960')).toEqual(['1960']);
    expect(parseDateExpr('1960 to 1962')).toEqual(['1960', '1961', '1962']);
    expect(parseDateExpr('01 Jan 1960 to 31 Dec 1961')).toEqual(['1960', '1961']);
    expect(parseDateExpr('circa 1957-1959')).toEqual(['1957', '1958', '1959']);
    expect(parseDateExpr('1900 to 1990')).toEqual(['1900', '1990']);
    expect(parseDateExpr('1960 to never')).toBeUndefined();
  });
});

describe('countries', () => {
  it('maps names, variants and codes to ISO alpha-2', () => {
    expect(countryCode('Russia')).toBe('RU');
    expect(countryCode('Korea, North')).toBe('KP');
    expect(countryCode("Democratic People's Republic of Korea")).toBe('KP');
    expect(countryCode('Congo, Democratic Republic of the')).toBe('CD');
    expect(countryCode('Iran (Islamic Republic of)')).toBe('IR');
    expect(countryCode('Côte d’Ivoire')).toBe('CI');
    expect(countryCode('Region: Crimea')).toBe('UA');
    expect(countryCode('ru')).toBe('RU');
    expect(countryCode('UK')).toBe('GB');
    expect(countryCode('suhh')).toBe('RU');
    expect(countryCode('NA')).toBe('NA');
    expect(lookupCountry('None Identified')).toEqual({ none: true });
    expect(lookupCountry('Atlantis')).toEqual({ unknown: true });
  });
});

describe('scripts and identifiers', () => {
  it('detects ISO 15924 scripts', () => {
    expect(detectScript('PUTIN, Vladimir')).toBe('Latn');
    expect(detectScript('Владимир Путин')).toBe('Cyrl');
    expect(detectScript('فلاديمير بوتين')).toBe('Arab');
    expect(detectScript('ולדימיר פוטין')).toBe('Hebr');
    expect(detectScript('Βλαντιμίρ Πούτιν')).toBe('Grek');
    expect(detectScript('普京')).toBe('Hani');
    expect(detectScript('ウラジーミル・プーチン')).toBe('Kana');
    expect(detectScript('東京 ひらがな')).toBe('Jpan');
    expect(detectScript('블라디미르 푸틴')).toBe('Hang');
    expect(detectScript('วลาดีมีร์ ปูติน')).toBe('Thai');
    expect(detectScript('Վլադիմիր')).toBe('Armn');
    expect(detectScript('ვლადიმერ')).toBe('Geor');
    expect(detectScript('व्लादिमीर')).toBe('Deva');
    expect(detectScript('123 - 456')).toBeUndefined();
  });

  it('normalises identifiers', () => {
    expect(normalizeIdentifier(' d366 871. ')).toBe('D366871');
    expect(normalizeIdentifier('DIB-771110-HQ1')).toBe('DIB771110HQ1');
    expect(normalizeIdentifier('№ АБ-12')).toBe('NOАБ12');
  });
});
