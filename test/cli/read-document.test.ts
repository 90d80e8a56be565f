// bin/veriscreen read-document: one JSON line per file in argument order; a corrupt or missing file gets its
// line with mrz null and an error (exit status 1), never a crash.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPECIMEN_TD3 } from '../../bench/mrz-specimens.js';
import { runCli } from '../helpers/cli.js';
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
});
