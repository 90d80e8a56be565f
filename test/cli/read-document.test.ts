// bin/veriscreen read-document: one JSON line per file in argument order; a corrupt or missing file gets its
// line with mrz null and an error (exit status 1), never a crash.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenceBack, licenceFront, photograph } from '../../bench/licence-images.js';
import { SPECIMEN_TD3 } from '../../bench/mrz-specimens.js';
import { runCli } from '../helpers/cli.js';
import { face } from '../helpers/identity-images.js';
import { NY_LICENCE } from '../helpers/licences.js';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';

const run = (args: string[]) => runCli(args);

describe('bin/veriscreen read-document (offline)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vs-read-document-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to run without files', async () => {
    const r = await run(['read-document']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/read-document needs at least one image file/);
    expect(r.stdout).toBe('');
  });

  it.skipIf(!HAS_SHARED_DATA)(
    'prints one JSON line per file; a corrupt and a missing file get mrz null and an error, exit 1',
    async () => {
      const corrupt = join(dir, 'corrupt.jpg');
      await writeFile(corrupt, Buffer.from('\xff\xd8\xff\xe0 truncated', 'latin1'));
      const td3 = sharedPath('documents/passporteye/tests/passport-td3.png');
      const missing = join(dir, 'missing.png');
      const r = await run(['read-document', corrupt, td3, missing]);
      expect(r.code).toBe(1);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatchObject({ path: corrupt, mrz: null, check_digits_valid: false });
      expect(lines[0]?.error).toMatch(/^(corrupt_image|unsupported_format):/);
      expect(lines[1]).toEqual({
        path: td3,
        mrz: SPECIMEN_TD3,
        barcode: null,
        check_digits_valid: true,
        accepted: true,
        reasons: [],
        quality: expect.objectContaining({ width: 1334, height: 880 }),
        // as read, before the repair by field type (the legacy engine may read UTO as UT0)
        lines: [expect.stringMatching(/^P<UT.ERIKSSON<<ANNA<MARIA<+$/), expect.stringMatching(/^L898902C36/)],
        took_ms: expect.any(Number),
      });
      expect(lines[2]).toMatchObject({ path: missing, mrz: null });
      expect(lines[2]?.error).toMatch(/^file_not_found:/);
    },
  );

  it.skipIf(!HAS_SHARED_DATA)(
    "reads a licence's back by its barcode, and front and back together as one card",
    async () => {
      const front = join(dir, 'front.jpg');
      const back = join(dir, 'back.jpg');
      await writeFile(
        front,
        await licenceFront(NY_LICENCE, face('img2.jpg'), { left: 560, top: 170, width: 420, height: 560 }),
      );
      await writeFile(back, await photograph(await licenceBack(NY_LICENCE), { rotate: 5, jpeg: 70 }));
      const r = await run(['read-document', back, '--front', front, '--back', back]);
      expect(r.code, r.stderr).toBe(0);
      const [alone, card] = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const barcode = {
        format: 'PDF417',
        aamva: expect.objectContaining({
          document_number: 'D1234567',
          family_name: 'DOE',
          first_name: 'JANE',
          birth_date: '1980-01-15',
          expiry_date: '2031-01-15',
          jurisdiction: 'NY',
          country: 'USA',
        }),
        missing: [],
        error: null,
      };
      expect(alone).toMatchObject({ path: back, mrz: null, barcode, accepted: true });
      expect(card).toMatchObject({ path: back, front_path: front, barcode, accepted: true });
      expect(card?.front_text).toEqual(expect.stringContaining('DOE'));
      expect(card?.front_matches).toMatchObject({ passed: true });
    },
  );
});
