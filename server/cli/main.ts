import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';
import { ROOT } from '../paths.js';
import { CliError, checkOptions, type OptionSpec, UsageError, wantsHelp } from './args.js';

interface Command extends OptionSpec {
  usage: string;
  run: (argv: string[]) => Promise<number>;
}

const EXIT = `Exit status: 0 success; 1 failure (a record or file failed, a dependency or file unavailable, a bad
option value); 2 wrong usage (unknown command or option, missing option value, unexpected argument).`;

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: `veriscreen serve

Applies migrations, then starts the HTTP API, the matcher workers and the background jobs (what \`npm start\` runs).
In development it loads the demo dataset and tenant and prints a banner with their keys on stderr.
Configured by the environment (see .env.example). Stops cleanly on SIGTERM/SIGINT.`,
    values: [],
    switches: [],
    positional: false,
    run: async (a) => (await import('./serve-command.js')).serve(a),
  },
  migrate: {
    usage: `veriscreen migrate

Creates the database if needed and applies pending migrations (DATABASE_URL).`,
    values: [],
    switches: [],
    positional: false,
    run: async (a) => (await import('./migrate-command.js')).migrateCommand(a),
  },
  ingest: {
    usage: `veriscreen ingest --format FORMAT --source PATH [--name NAME] [--promote]

Parses a list file (or directory) into a new dataset version in the database (DATABASE_URL, S3).
  --format FORMAT   the list's format (e.g. ofac_sdn_csv)
  --source PATH     the file or directory to read
  --name NAME       the version's name (default FORMAT:basename)
  --promote         make the new version active`,
    values: ['format', 'source', 'name'],
    switches: ['promote'],
    positional: false,
    run: async (a) => (await import('./ingest-command.js')).ingestCommand(a),
  },
  screen: {
    usage: `veriscreen screen --list FORMAT:PATH [--list …] [--threshold X] [--limit K] [--datasets a,b]

Screens JSON-lines subjects ({"name": …, "date_of_birth": …}) from stdin against lists read from disk, offline.
One JSON line per input line on stdout, in order; a failed line has "line" (its input line number) and "error";
a malformed optional field is dropped and reported in "warnings" while the name is still screened.
  --list FORMAT:PATH  a list to load (repeatable)
  --threshold X       minimum score, 0..1 (default: the review threshold)
  --limit K           matches per subject, 1..100 (default 5)
  --datasets a,b      restrict to these datasets
Exit status 1 when any line failed (the count is on stderr).`,
    values: ['list', 'threshold', 'limit', 'datasets'],
    switches: [],
    positional: false,
    run: async (a) => (await import('./screen-command.js')).screenCommand(a),
  },
  compare: {
    usage: `veriscreen compare

Scores {"schema": "Person", "a": NAME_OR_SUBJECT, "b": NAME_OR_SUBJECT} JSON lines from stdin, offline.
schema is one of Person, Organization, Company, LegalEntity, Vessel, Aircraft (default Person).
Exit status 1 when any line failed (the count is on stderr).`,
    values: [],
    switches: [],
    positional: false,
    run: async (a) => (await import('./screen-command.js')).compareCommand(a),
  },
  'face-match': {
    usage: `veriscreen face-match [--threshold X]

Compares the faces of {"a": FILE, "b": FILE} JSON lines from stdin, offline, one JSON line per input line.
  --threshold X  match threshold, 0..1 (default: the selfie check's)
Exit status 1 when a line failed (an error line carrying its line number; the count on stderr).`,
    values: ['threshold'],
    switches: [],
    positional: false,
    run: async (a) => (await import('./face-match-command.js')).faceMatchCommand(a),
  },
  'read-document': {
    usage: `veriscreen read-document FILE... [--front FRONT --back BACK]...

Reads identity document images, offline, one JSON line per file in argument order: the MRZ (\`mrz\`) and the
PDF417 barcode of a licence or ID card's back (\`barcode\`, AAMVA fields). --front/--back give the two sides of
one card (pairs in order): one line for the pair, the data from the back, the front's printed text compared
with it (\`front_matches\`).
Exit status 1 when a file could not be read.`,
    values: ['front', 'back'],
    switches: [],
    positional: true,
    run: async (a) => (await import('./read-document-command.js')).readDocumentCommand(a),
  },
  'verify-chip': {
    usage: `veriscreen verify-chip --sod FILE --dg1 FILE [--dg2 FILE …] [--csca FILE | --master-list FILE …]

Passive authentication of ePassport chip data read from files, offline: the data-group hashes in EF.SOD, its
signature by the Document Signer, and the Document Signer's chain to a CSCA given here. Prints one JSON object
(every sub-check, the parsed DG1, the signer, the chain).
  --sod FILE           EF.SOD as read from the chip (tag 0x77)
  --dg1 … --dg16 FILE  the data groups read (DG1 required; each is hashed against the SOD)
  --ds FILE            the Document Signer certificate, when the SOD does not embed it (DER or PEM)
  --csca FILE          a trusted CSCA certificate, DER or PEM (repeatable)
  --master-list FILE   a CSCA master list (CMS); its signature is verified and its CSCAs trusted (repeatable)
  --crl FILE           a CSCA's CRL, DER or PEM (repeatable)
  --aa-challenge HEX   the 8-byte Active Authentication challenge sent to the chip, with
  --aa-signature FILE  the chip's answer (verified with DG15's key)
Exit status 0 when passive authentication passed, 1 when it did not or a file could not be read.`,
    values: [
      'sod',
      ...Array.from({ length: 16 }, (_, i) => `dg${i + 1}`),
      'ds',
      'csca',
      'master-list',
      'crl',
      'aa-challenge',
      'aa-signature',
    ],
    switches: [],
    positional: false,
    run: async (a) => (await import('./verify-chip-command.js')).verifyChipCommand(a),
  },
};

const USAGE = `veriscreen <command> [options]

Commands:
  serve                         migrate, start HTTP and matcher workers (npm start)
  migrate                       apply database migrations
  ingest --format F --source P  parse a list into a new dataset version [--name N] [--promote]
  screen --list F:PATH ...      screen JSON-lines subjects from stdin offline [--threshold X] [--limit K] [--datasets a,b]
  compare                       score {"schema","a","b"} JSON lines from stdin offline
  face-match                    compare the faces of {"a": FILE, "b": FILE} JSON lines from stdin offline
                                [--threshold X]; exit 1 when a line failed (an error line each)
  read-document FILE...         read the MRZ or barcode of identity document images offline, one JSON line per file
  verify-chip --sod F --dg1 F   passive authentication of ePassport chip data offline [--dg2 F …]
                                [--csca F | --master-list F | --crl F …]; exit 0 when verified

Options: --help, -h (on any command: its usage), --version
${EXIT}
Environment: see .env.example (DATABASE_URL, REDIS_URL, NATS_URL, PORT, HOST, ADMIN_TOKEN, MATCHER_THREADS …)`;

/** A `.env` in the working directory (e.g. a copy of .env.example), read before any command: variables already set
 * in the environment win. */
function loadDotEnv(): void {
  if (existsSync('.env')) process.loadEnvFile('.env');
}

function version(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      process.stderr.write(`${USAGE}\n`);
      return 2;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
    case '--version':
    case '-V':
      process.stdout.write(`veriscreen ${version()}\n`);
      return 0;
  }
  const cmd = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!cmd) {
    const what = command.startsWith('-') ? `unknown option ${command}` : `unknown command "${command}"`;
    throw new UsageError(`${what} (see: veriscreen --help)`, 2);
  }
  // before anything starts: help has no side effects, and a typo runs nothing
  if (wantsHelp(rest)) {
    process.stdout.write(`${cmd.usage}\n\n${EXIT}\n`);
    return 0;
  }
  checkOptions(command, rest, cmd);
  return cmd.run(rest);
}

const command = process.argv[2];
loadDotEnv();
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // a stopped server may still hold idle keep-alive sockets: leave now that everything is drained
    if (command === 'serve') process.exit(code);
  },
  (err: unknown) => {
    // expected failures get one clear line; anything else is a bug and keeps its stack
    const e = err as NodeJS.ErrnoException;
    if (
      err instanceof UsageError ||
      err instanceof CliError ||
      err instanceof ConfigError ||
      e.name === 'DependencyError' ||
      e.name === 'ListenError'
    ) {
      process.stderr.write(`veriscreen: ${e.message}\n`);
    } else if (typeof e.code === 'string' && typeof e.path === 'string' && /^E[A-Z]+$/.test(e.code)) {
      // a file the command was pointed at (missing, unreadable, a directory): the OS's own message, no stack
      process.stderr.write(`veriscreen: ${e.message}\n`);
    } else {
      process.stderr.write(`veriscreen: ${e.stack ?? String(err)}\n`);
    }
    process.exitCode = err instanceof UsageError ? err.exitCode : 1;
    // a serve that failed to start may still hold connections or timers: leave now
    if (command === 'serve') process.exit(process.exitCode);
  },
);
