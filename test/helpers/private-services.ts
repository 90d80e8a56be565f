import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { type AddressInfo, createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait.js';

/** Private NATS / Redis / Postgres instances for outage tests: the machine's shared services are never stopped. */

const run = promisify(execFile);
export const NATS_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
export const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}
export const PG_BIN_DIR = process.env.PG_BIN_DIR ?? postgresBinDir();

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

export const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection({ port, host: '127.0.0.1' }, () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

abstract class PrivateProcess {
  protected child: ChildProcess | undefined;
  readonly port: number;
  readonly dir: string;
  constructor(port: number, dir: string) {
    this.port = port;
    this.dir = dir;
  }
  protected abstract spawnArgs(): [string, string[]];
  async start(): Promise<void> {
    const [bin, args] = this.spawnArgs();
    this.child = spawn(bin, args, { stdio: 'ignore' });
    await waitFor(`${bin} to listen`, async () => ((await listening(this.port)) ? true : undefined), 20_000);
  }
  /** SIGSTOP: the port stays open but nothing answers (a hung server or a network partition) */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }
  thaw(): void {
    this.child?.kill('SIGCONT');
  }
  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  }
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

export class PrivateNats extends PrivateProcess {
  static async create(): Promise<PrivateNats> {
    const n = new PrivateNats(await freePort(), await mkdtemp(join(tmpdir(), 'vs-nats-')));
    await n.start();
    return n;
  }
  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }
  protected spawnArgs(): [string, string[]] {
    return [NATS_BIN, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.dir]];
  }
}

export class PrivateRedis extends PrivateProcess {
  static async create(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort(), await mkdtemp(join(tmpdir(), 'vs-redis-')));
    await r.start();
    return r;
  }
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  protected spawnArgs(): [string, string[]] {
    return [
      REDIS_BIN,
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ],
    ];
  }
}

/** initdb + pg_ctl in a temporary directory (as the postgres user when the tests run as root). */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}
  static async create(): Promise<PrivatePostgres> {
    if (!PG_BIN_DIR) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (set PG_BIN_DIR)');
    const dir = await mkdtemp(join(tmpdir(), 'vs-pg-'));
    const p = new PrivatePostgres(await freePort(), dir);
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    await p.pg('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await p.start();
    return p;
  }
  get url() {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }
  private async pg(tool: string, args: string[]): Promise<void> {
    const bin = join(PG_BIN_DIR ?? '', tool);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', bin, ...args]);
    else await run(bin, args);
  }
  async start(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
    await this.pg('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-o',
      opts,
      '-l',
      join(this.dir, 'log'),
      '-w',
      'start',
    ]);
  }
  async stop(): Promise<void> {
    await this.thaw();
    await this.pg('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(() => {});
  }
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
  /** The postmaster (from its pid file) and its children (backends and helpers), by process id. */
  private async pids(): Promise<number[]> {
    const pm = Number((await readFile(join(this.dir, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(pm)]).catch(() => ({ stdout: '' }));
    return [
      pm,
      ...stdout
        .split('\n')
        .map(Number)
        .filter((n) => n > 0),
    ];
  }
  private frozen: number[] = [];
  /** SIGSTOP the server and every backend: connections stay open and new ones are accepted by the kernel, but
   * nothing answers (a hung host). */
  async freeze(): Promise<void> {
    this.frozen = await this.pids();
    for (const pid of this.frozen) process.kill(pid, 'SIGSTOP');
  }
  async thaw(): Promise<void> {
    for (const pid of this.frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone meanwhile
      }
    }
    this.frozen = [];
  }
}
