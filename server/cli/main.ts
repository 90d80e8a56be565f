import { ConfigError } from '../config.js';
import { UsageError } from './args.js';

const USAGE = `veriscreen <command> [options]

Commands:
  serve                         migrate, start HTTP and matcher workers (npm start)
  migrate                       apply database migrations
  ingest --format F --source P  parse a list into a new dataset version [--name N] [--promote]
  screen --list F:PATH ...      screen JSON-lines subjects from stdin offline [--threshold X] [--limit K] [--datasets a,b]
  compare                       score {"schema","a","b"} JSON lines from stdin offline
  face-match                    compare the faces of {"a": FILE, "b": FILE} JSON lines from stdin offline
                                [--threshold X]; exit 0 once stdin is read (bad lines are error lines)
  read-document FILE...         read the MRZ of identity document images offline, one JSON line per file

Environment: see .env.example (DATABASE_URL, REDIS_URL, NATS_URL, PORT, HOST, ADMIN_TOKEN, MATCHER_THREADS …)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return (await import('./serve-command.js')).serve(rest);
    case 'migrate':
      return (await import('./migrate-command.js')).migrateCommand(rest);
    case 'ingest':
      return (await import('./ingest-command.js')).ingestCommand(rest);
    case 'screen':
      return (await import('./screen-command.js')).screenCommand(rest);
    case 'compare':
      return (await import('./screen-command.js')).compareCommand(rest);
    case 'face-match':
      return (await import('./face-match-command.js')).faceMatchCommand(rest);
    case 'read-document':
      return (await import('./read-document-command.js')).readDocumentCommand(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}\n`);
      return 2;
  }
}

const command = process.argv[2];
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // a stopped server may still hold idle keep-alive sockets: leave now that everything is drained
    if (command === 'serve') process.exit(code);
  },
  (err: unknown) => {
    // expected failures get one clear line; anything else is a bug and keeps its stack
    if (
      err instanceof UsageError ||
      err instanceof ConfigError ||
      (err as Error).name === 'DependencyError'
    ) {
      process.stderr.write(`veriscreen: ${(err as Error).message}\n`);
    } else {
      process.stderr.write(`veriscreen: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.exitCode = 1;
  },
);
