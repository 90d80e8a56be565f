// The AAMVA parser, version by version (1–10): header, DL/ID subfiles, names by version, date order by version and
// country, sex codes, address, discriminator, REAL ID compliance; the standard's own example; corrupt payloads.
import { describe, expect, it } from 'vitest';
import { aamvaDate, aamvaMissing, composeAamva, parseAamva } from '../../identity/barcode/aamva.js';

/** Annex D of the AAMVA DL/ID card design standard (2016, version 8): Virginia's example, with its ZV subfile. */
const AAMVA_2016_EXAMPLE =
  '@\n\x1e\rANSI 636000080002DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\nDADJOHN\n' +
  'DDGN\nDCAD\nDCBK\nDCDPH\nDBD06062016\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\nDAYBRO\n' +
  'DAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\nDCGUSA\n' +
  'DCK123456789\nDDAF\nDDB06062008\nDDC06062009\nDDD1\rZVZVA01\r';

describe('AAMVA payloads', () => {
  it("parses the standard's example", () => {
    const r = parseAamva(AAMVA_2016_EXAMPLE);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.fields).toMatchObject({
      subfile: 'DL',
      aamva_version: 8,
      jurisdiction_version: 0,
      issuer_id: '636000',
      jurisdiction: 'VA',
      country: 'USA',
      document_number: 'T64235789',
      family_name: 'SAMPLE',
      first_name: 'MICHAEL',
      middle_names: 'JOHN',
      birth_date: '1986-06-06',
      issue_date: '2016-06-06',
      expiry_date: '2024-12-10',
      sex: 'M',
      address: {
        street: '2300 WEST BROAD STREET',
        street2: null,
        city: 'RICHMOND',
        jurisdiction: 'VA',
        postal_code: '232690000',
      },
      document_discriminator: '2424244747474786102204',
      compliance_type: 'F',
    });
    expect(aamvaMissing(r.fields)).toEqual([]);
  });

  // one payload per version, written the way that version writes names and dates
  const common: [string, string][] = [
    ['DAQ', 'D1234567'],
    ['DAG', '1 MAIN ST'],
    ['DAI', 'SPRINGFIELD'],
    ['DAK', '123450000'],
    ['DCF', 'DISC123'],
  ];
  it.each([
    [
      1,
      '636014',
      'US, version 1: DAA combined, CCYYMMDD, sex M',
      [
        ['DAA', 'DOE,JANE,Q'],
        ['DBB', '19800115'],
        ['DBA', '20300115'],
        ['DBD', '20200115'],
        ['DBC', 'F'],
      ],
      'CA',
      'USA',
    ],
    [
      1,
      '636015',
      'US, version 1: DAB/DAC/DAD',
      [
        ['DAB', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '19800115'],
        ['DBA', '20300115'],
        ['DBD', '20200115'],
        ['DBC', '2'],
      ],
      'TX',
      'USA',
    ],
    [
      2,
      '636001',
      'US, version 2: DCS + DCT, MMDDCCYY',
      [
        ['DCS', 'DOE'],
        ['DCT', 'JANE Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '2'],
      ],
      'NY',
      'USA',
    ],
    [
      3,
      '636010',
      'US, version 3: DCT with a comma',
      [
        ['DCS', 'DOE'],
        ['DCT', 'JANE,Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '2'],
        ['DCG', 'USA'],
      ],
      'FL',
      'USA',
    ],
    [
      4,
      '636012',
      'Canada, version 4: CCYYMMDD',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '19800115'],
        ['DBA', '20300115'],
        ['DBD', '20200115'],
        ['DBC', '2'],
        ['DCG', 'CAN'],
      ],
      'ON',
      'CAN',
    ],
    [
      5,
      '636020',
      'US, version 5: DDA compliance',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '2'],
        ['DCG', 'USA'],
        ['DDA', 'N'],
      ],
      'CO',
      'USA',
    ],
    [
      6,
      '636026',
      'US, version 6',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '2'],
        ['DCG', 'USA'],
        ['DDA', 'F'],
      ],
      'AZ',
      'USA',
    ],
    [
      7,
      '636028',
      'Canada, version 7',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '19800115'],
        ['DBA', '20300115'],
        ['DBD', '20200115'],
        ['DBC', '2'],
        ['DCG', 'CAN'],
      ],
      'BC',
      'CAN',
    ],
    [
      8,
      '636045',
      'US, version 8',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '2'],
        ['DCG', 'USA'],
        ['DDA', 'F'],
      ],
      'WA',
      'USA',
    ],
    [
      9,
      '636014',
      'US, version 9: sex 9 (not specified) is X',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '9'],
        ['DCG', 'USA'],
        ['DDA', 'F'],
      ],
      'CA',
      'USA',
    ],
    [
      10,
      '636055',
      'US, version 10',
      [
        ['DCS', 'DOE'],
        ['DAC', 'JANE'],
        ['DAD', 'Q'],
        ['DBB', '01151980'],
        ['DBA', '01152030'],
        ['DBD', '01152020'],
        ['DBC', '2'],
        ['DCG', 'USA'],
        ['DDA', 'F'],
      ],
      'GA',
      'USA',
    ],
  ] as [number, string, string, [string, string][], string, string][])(
    'version %i (%s): %s',
    (version, issuer, _what, own, jurisdiction, country) => {
      const payload = composeAamva({
        issuer,
        version,
        jurisdictionVersion: 1,
        elements: [...common, ...own],
      });
      const r = parseAamva(payload);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      if (!r.ok) return;
      expect(r.fields).toMatchObject({
        aamva_version: version,
        jurisdiction_version: version >= 2 ? 1 : null,
        jurisdiction,
        country,
        document_number: 'D1234567',
        family_name: 'DOE',
        first_name: 'JANE',
        middle_names: 'Q',
        birth_date: '1980-01-15',
        expiry_date: '2030-01-15',
        issue_date: '2020-01-15',
        sex: version === 9 ? 'X' : 'F',
        document_discriminator: 'DISC123',
        address: { street: '1 MAIN ST', city: 'SPRINGFIELD', postal_code: '123450000' },
      });
    },
  );

  it('reads an ID subfile, the AAMVA file type and wrong offsets', () => {
    const payload = composeAamva({
      issuer: '636014',
      version: 9,
      jurisdictionVersion: 0,
      subfile: 'ID',
      fileType: 'AAMVA',
      elements: [
        ['DAQ', 'I7654321'],
        ['DCS', 'ROE'],
        ['DAC', 'RICHARD'],
        ['DBB', '02291984'],
        ['DBA', '02282031'],
      ],
    });
    const moved = payload.replace('ID0031', 'ID0099');
    for (const p of [payload, moved]) {
      const r = parseAamva(p);
      expect(r.ok && r.fields).toMatchObject({
        subfile: 'ID',
        document_number: 'I7654321',
        birth_date: '1984-02-29',
      });
    }
  });

  it.each([
    ['01151980', true, '1980-01-15'],
    ['19800115', false, '1980-01-15'],
    ['19800115', true, '1980-01-15'], // MMDD order impossible → the other
    ['02301980', true, null], // 30 February in either order
    ['1980', true, null],
  ])('date %s (MMDDCCYY first: %s) → %s', (v, mmdd, out) => {
    expect(aamvaDate(v, mmdd)).toBe(out);
  });

  it.each([
    ['empty', ''],
    ['not AAMVA', 'hello world, this is a QR code payload'],
    ['header only', '@\n\x1e\rANSI 6360140902'],
    ['cut in the header', AAMVA_2016_EXAMPLE.slice(0, 30)],
    ['garbage after the header', `@\n\x1e\rANSI 636014090001DL00310010${'\u0000\u00ff'.repeat(50)}`],
  ])('refuses %s without throwing', (_what, payload) => {
    const r = parseAamva(payload);
    expect(r.ok).toBe(false);
  });

  it('a payload cut inside its subfile parses what is there and names what is missing', () => {
    const r = parseAamva(AAMVA_2016_EXAMPLE.slice(0, 120));
    expect(r.ok).toBe(true);
    if (r.ok) expect(aamvaMissing(r.fields)).toEqual(expect.arrayContaining(['birth_date', 'expiry_date']));
  });
});
