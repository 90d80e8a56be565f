// bin/veriscreen verify-chip: passive authentication of chip files offline, against CSCAs and master lists given on
// the command line; one JSON object; exit 0 only when verified; bad bytes are a reported failure, never a crash.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aaSign,
  keyPair,
  makeCsca,
  makeDg1,
  makeDg2,
  makeDg15,
  makeMasterList,
  makeSigner,
  makeSod,
} from '../helpers/chip-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { td3Lines } from '../helpers/identity-images.js';
import { sharedPath } from '../helpers/shared-data.js';

interface Report {
  verified: boolean;
  sub_checks: { name: string; passed: boolean | null; reason_code: string }[];
  dg1: Record<string, unknown> | null;
  signer: { subject: string } | null;
  chain: { failure: string | null } | null;
  trust: { cscas: number; master_lists: { cscas: number }[] };
}

let dir: string;
const file = async (name: string, bytes: Uint8Array) => {
  const p = join(dir, name);
  await writeFile(p, bytes);
  return p;
};
const run = async (args: string[]) => {
  const r = await runCli(['verify-chip', ...args]);
  return { ...r, report: r.stdout ? (JSON.parse(r.stdout) as Report) : null };
};
const passed = (r: Report | null) => Object.fromEntries((r?.sub_checks ?? []).map((s) => [s.name, s.passed]));

let args: string[];
let csca: string;
let masterList: string;
const challenge = randomBytes(8);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vs-verify-chip-'));
  const ca = makeCsca({ country: 'NL', cn: 'CSCA NL (test)', kind: 'brainpoolP256r1', slot: 'cli-csca' });
  const ds = makeSigner({ country: 'NL', cn: 'DS NL (test)', kind: 'brainpoolP256r1', slot: 'cli-ds' }, ca);
  const aa = keyPair('rsa', 'cli-aa');
  const dgs = {
    1: makeDg1(
      td3Lines({
        surname: 'DE VRIES',
        given_names: 'JAN',
        birth_date: '1980-02-29',
        expiry_date: '2032-01-01',
        sex: 'M',
        document_number: 'NX12AB345',
        country: 'NLD',
      }),
    ),
    2: makeDg2(randomJpegStandIn(), 0),
    15: makeDg15(aa.publicKey),
  };
  const sod = makeSod(ds, dgs);
  args = [
    '--sod',
    await file('EF_SOD.bin', sod),
    '--dg1',
    await file('DG1.bin', dgs[1]),
    '--dg2',
    await file('DG2.bin', dgs[2]),
    '--dg15',
    await file('DG15.bin', dgs[15]),
    '--aa-challenge',
    challenge.toString('hex'),
    '--aa-signature',
    await file('AA.bin', aaSign(aa.privateKey, challenge)),
  ];
  csca = await file(
    'csca.pem',
    Buffer.from(
      `-----BEGIN CERTIFICATE-----\n${Buffer.from(ca.der).toString('base64')}\n-----END CERTIFICATE-----\n`,
    ),
  );
  const mlCa = makeCsca({ country: 'NL', cn: 'CSCA NL (test)', kind: 'brainpoolP256r1', slot: 'cli-csca' });
  const mlSigner = makeSigner(
    { country: 'NL', cn: 'Master List Signer NL', kind: 'p256', slot: 'cli-ml', usage: [0] },
    mlCa,
  );
  masterList = await file('ml.ml', makeMasterList(mlSigner, [mlCa.der]));
});

/** A JPEG's magic and some bytes: DG2 is only hashed and its format sniffed here. */
function randomJpegStandIn(): Uint8Array {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(200)]);
}

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bin/veriscreen verify-chip (offline)', () => {
  it('with the CSCA (PEM): every sub-check passes, the DG1 and the signer are printed, exit 0', async () => {
    const r = await run([...args, '--csca', csca]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.report?.verified).toBe(true);
    expect(passed(r.report)).toEqual({
      chip_read: true,
      chip_data_integrity: true,
      chip_signature: true,
      chip_certificate_chain: true,
      chip_active_authentication: true,
    });
    expect(r.report?.dg1).toMatchObject({
      surname: 'DE VRIES',
      given_names: 'JAN',
      issuing_country: 'NLD',
      birth_date: '1980-02-29',
    });
    expect(r.report?.signer?.subject).toContain('CN=DS NL (test)');
  });

  it('with a master list instead: its CSCAs are trusted after its signature is verified', async () => {
    const r = await run([...args, '--master-list', masterList]);
    expect(r.code).toBe(0);
    expect(r.report?.trust).toMatchObject({ cscas: 1, master_lists: [{ cscas: 1 }] });
  });

  it('without a CSCA the chain is untrusted: exit 1 with the full report', async () => {
    const r = await run(args);
    expect(r.code).toBe(1);
    expect(r.report?.chain?.failure).toBe('no_csca_for_country');
    expect(passed(r.report).chip_signature).toBe(true);
  });

  it('a garbage SOD, a corrupt master list and a missing file are clear failures, never a crash', async () => {
    const garbage = await file('garbage.bin', randomBytes(300));
    const g = await run(['--sod', garbage, ...args.slice(2), '--csca', csca]);
    expect(g.code).toBe(1);
    expect(g.stderr).toBe('');
    expect(passed(g.report).chip_read).toBe(false);
    const badMl = await run([...args, '--master-list', garbage]);
    expect(badMl.code).toBe(1);
    expect(badMl.stderr).toMatch(/^veriscreen: .*garbage\.bin: master_list/);
    const missing = await run(['--sod', join(dir, 'nope.bin'), '--dg1', join(dir, 'DG1.bin')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/ENOENT|no such file/);
    const usage = await run(['--dg1', join(dir, 'DG1.bin')]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/needs --sod/);
  });

  it.skipIf(!existsSync(sharedPath('nfc')))(
    'a real EF.SOD: its signature verifies against its Document Signer',
    async () => {
      // DG1 of that set is not available (an empty file stands in); its DG14 is, and its hash is in the SOD
      const r = await run([
        '--sod',
        sharedPath('nfc', 'bsi-tr03105-5_EF_SOD.bin'),
        '--dg1',
        await file('empty.bin', new Uint8Array()),
        '--dg14',
        sharedPath('nfc', 'bsi-tr03105-5_EF_DG14.bin'),
        '--ds',
        sharedPath('nfc', 'bsi-tr03105-5_DS.cer'),
      ]);
      expect(r.code).toBe(1);
      expect(passed(r.report).chip_signature).toBe(true);
      expect(r.report?.signer?.subject).toContain('HJP PB DS');
      expect(r.report?.chain?.failure).toBe('no_csca_for_country');
      expect(passed(r.report).chip_read).toBe(false);
    },
  );
});
