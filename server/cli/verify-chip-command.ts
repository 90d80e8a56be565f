// `veriscreen verify-chip --sod FILE --dg1 FILE [--dg2 FILE …] [--csca FILE | --master-list FILE …]`: passive
// authentication of chip data read from files, offline, against the CSCAs, master lists and CRLs named on the
// command line. Prints one JSON object: every sub-check, the parsed DG1, the signer, the chain. Exit status 0 when
// passive authentication passed, 1 when it did not (or a file could not be read), 2 for usage errors. No database.
import { readFile } from 'node:fs/promises';
import {
  type ChipData,
  ChipFormatError,
  parseAnchors,
  readMasterList,
  verifyChip,
} from '../../identity/chip/index.js';
import { CliError, flag, parseArgs, UsageError } from './args.js';

/** Largest file read (a master list of every state is a few MiB). */
const MAX_FILE_BYTES = 32 * 2 ** 20;

async function load(path: string): Promise<Buffer> {
  const bytes = await readFile(path);
  if (bytes.length > MAX_FILE_BYTES) throw new CliError(`${path}: larger than ${MAX_FILE_BYTES} bytes`);
  return bytes;
}

export async function verifyChipCommand(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv);
  const sod = flag(flags, 'sod');
  if (!sod) throw new UsageError('verify-chip needs --sod FILE');
  if (!flag(flags, 'dg1')) throw new UsageError('verify-chip needs --dg1 FILE');
  const data_groups: ChipData['data_groups'] = {};
  for (let n = 1; n <= 16; n++) {
    const path = flag(flags, `dg${n}`);
    if (path) data_groups[n] = await load(path);
  }
  const ds = flag(flags, 'ds');
  const data: ChipData = {
    sod: await load(sod),
    data_groups,
    document_signer: ds ? await load(ds) : null,
    active_authentication: await activeAuthentication(flags),
  };
  const cscas: Uint8Array[] = [];
  for (const path of flags.csca ?? []) cscas.push(await load(path));
  const masterLists = [];
  for (const path of flags['master-list'] ?? []) {
    try {
      const ml = readMasterList(await load(path), parseAnchors({ cscas, crls: [], version: null }));
      cscas.push(...ml.cscas.map((c) => c.der));
      masterLists.push({
        path,
        signer: ml.signer.subject,
        cscas: ml.cscas.length,
        signer_issuer: ml.signer_issuer,
      });
    } catch (err) {
      if (err instanceof ChipFormatError) throw new CliError(`${path}: ${err.message}`);
      throw err;
    }
  }
  const crls: Uint8Array[] = [];
  for (const path of flags.crl ?? []) crls.push(await load(path));
  const anchors = parseAnchors({ cscas, crls, version: null });
  const { trust_store_version: _v, ...report } = verifyChip(data, anchors);
  const trust = {
    cscas: cscas.length,
    crls: crls.length,
    master_lists: masterLists,
    skipped: anchors.skipped,
  };
  process.stdout.write(`${JSON.stringify({ ...report, trust })}\n`);
  return report.verified ? 0 : 1;
}

async function activeAuthentication(
  flags: Record<string, string[]>,
): Promise<ChipData['active_authentication']> {
  const challenge = flag(flags, 'aa-challenge');
  const signature = flag(flags, 'aa-signature');
  if (!challenge && !signature) return null;
  if (!challenge || !signature)
    throw new UsageError('--aa-challenge HEX and --aa-signature FILE go together', 2);
  if (!/^[0-9a-fA-F]{16}$/.test(challenge))
    throw new UsageError('--aa-challenge is 8 bytes in hex (16 digits)');
  return { challenge: Buffer.from(challenge, 'hex'), signature: await load(signature) };
}
