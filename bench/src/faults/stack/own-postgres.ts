import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@fed/testing';

const run = promisify(execFile);
const CLUSTER_USER = 'postgres';

/** The directory of initdb and pg_ctl: the newest /usr/lib/postgresql/<n>/bin, or undefined. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(root, version, 'bin')).find((bin) => existsSync(path.join(bin, 'initdb')));
}

/**
 * A throwaway PostgreSQL cluster of the scenario's own (initdb + pg_ctl in a temporary directory, on a
 * free port), so that a restart never touches the machine's shared server. initdb refuses to run as
 * root, so as root the cluster belongs to the `postgres` user.
 */
export class OwnPostgres {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<OwnPostgres> {
    const bin = postgresBinaries();
    if (!bin) throw new Error('no PostgreSQL server binaries (/usr/lib/postgresql/<n>/bin/initdb) on this machine');
    const dir = await mkdtemp(path.join(tmpdir(), 'fed-faults-pg-'));
    const cluster = new OwnPostgres(bin, dir, await freePort());
    try {
      if (asRoot()) {
        const { uid, gid } = await idsOf(CLUSTER_USER);
        await chown(dir, uid, gid);
      }
      await cluster.as(path.join(bin, 'initdb'), ['-D', cluster.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
      await cluster.up();
      // pg_ctl detaches the server: without this, a run stopped with Ctrl-C would leave it running.
      process.once('exit', cluster.stopAtExit);
      return cluster;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The cluster's `postgres` database; scenarios create their own beside it. */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  urlOf(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async up(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off`;
    await this.as(path.join(this.bin, 'pg_ctl'), [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      this.logFile,
      '-w',
      'start',
    ]);
  }

  /** `fast`: connections are closed and the server stops cleanly, as a restart by an operator does. */
  async down(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.as(path.join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  async close(): Promise<void> {
    process.off('exit', this.stopAtExit);
    await this.down('immediate').catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  private readonly stopAtExit = () => {
    try {
      const [file, argv] = this.command(path.join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', 'immediate', 'stop']);
      execFileSync(file, argv, { stdio: 'ignore', timeout: 10_000 });
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  };

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  private get logFile(): string {
    return path.join(this.dir, 'server.log');
  }

  private async as(command: string, args: string[]): Promise<void> {
    const [file, argv] = this.command(command, args);
    await run(file, argv, { timeout: 60_000 });
  }

  /** The command line that runs `command` as the cluster's owner. */
  private command(command: string, args: string[]): [string, string[]] {
    return asRoot() ? ['runuser', ['-u', CLUSTER_USER, '--', command, ...args]] : [command, args];
  }
}

function asRoot(): boolean {
  return userInfo().uid === 0;
}

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
