import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { type DataDirLock, liveHolderOf, lockDataDir } from './data-dir.lock';
import { endpointFile } from './embedded-postgres.endpoint';
import { OWNER_ONLY_DIRECTORY, makeOwnerOnly } from './owner-only';
import {
  type PgliteWorkerCommand,
  type PgliteWorkerData,
  type PgliteWorkerMessage,
  pgliteServerWorkerSource,
} from './pglite-server.worker';

export interface EmbeddedPostgresOptions {
  /** PostgreSQL keeps its files in `<dataDir>/pg`. */
  dataDir: string;
  /** Keep it above the sum of all pool sizes. */
  maxConnections?: number;
  /** Publishes the endpoint file, so `platformctl` works while the platform runs. */
  shared?: boolean;
}

export interface EmbeddedPostgres {
  url: string;
  /** When another process serves it (`openEmbeddedPostgres`). */
  servedBy?: number;
  /** When another process serves it, only lets go of it. */
  stop(): Promise<void>;
}

export class EmbeddedPostgresUnreachableError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
    readonly address: string,
    options: { cause: unknown },
  ) {
    super(
      `Process ${holderPid} holds ${dataDir} but its embedded PostgreSQL does not answer at ${address}: ` +
        `${options.cause instanceof Error ? options.cause.message : String(options.cause)}`,
      options,
    );
    this.name = 'EmbeddedPostgresUnreachableError';
  }
}

const LOCK_FILE = 'pg.lock';
// Clients look for `<dir>/.s.PGSQL.<port>`; sun_path holds at most 107 bytes.
const socketPort = 5432;
const socketName = `.s.PGSQL.${socketPort}`;
const maxSocketPath = 100;
// Waits out a transaction of the holder (first-start migrations take seconds).
const PROBE_TIMEOUT_MS = 10_000;

// PGlite served on a Unix socket, so the code uses the same `pg` driver as in production. One session:
// while one connection is in a transaction, the others wait.
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  const lock = await lockDataDir(path.join(dataDir, LOCK_FILE), dataDir);
  let socket: SocketDirectory | undefined;
  let worker: Worker | undefined;
  try {
    // Chat text, password hashes and e-mail addresses are in these files: no other local user may read them.
    await makeOwnerOnly(dataDir);
    const pgDataDir = path.join(dataDir, 'pg');
    await mkdir(pgDataDir, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
    await endpointFile(dataDir).remove();
    socket = await socketDirectory(dataDir);
    const workerData: PgliteWorkerData = {
      resolveFrom: __filename,
      pgDataDir,
      socketPath: path.join(socket.dir, socketName),
      maxConnections: options.maxConnections ?? 10,
    };
    worker = new Worker(pgliteServerWorkerSource, { eval: true, workerData });
    await expectMessage(worker, 'listening');
    const url = socketUrl(socket.dir);
    if (options.shared) await endpointFile(dataDir).publish({ url });
    const running = { worker, lock, socket, dataDir };
    return { url, stop: once(() => stop(running)) };
  } catch (error) {
    await worker?.terminate();
    await socket?.remove();
    await lock.release();
    throw error;
  }
}

/** For a short-lived tool (platformctl): the running platform's shared database, else one started here. */
export async function openEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const shared = await findSharedDatabase(dataDir);
  if (shared) {
    const failure = await probe(shared.url);
    if (!failure) return { url: shared.url, servedBy: shared.pid, stop: async () => undefined };
    // A holder that stopped in the meantime has freed the directory.
    if ((await liveHolderOf(path.join(dataDir, LOCK_FILE))) === shared.pid) {
      throw new EmbeddedPostgresUnreachableError(dataDir, shared.pid, socketAddress(shared.url), { cause: failure });
    }
  }
  return startEmbeddedPostgres({ ...options, shared: false });
}

// An endpoint file is believed only while the live holder of the lock is the process that wrote it.
async function findSharedDatabase(dataDir: string): Promise<{ url: string; pid: number } | undefined> {
  const endpoint = await endpointFile(dataDir).read();
  if (!endpoint) return undefined;
  const holder = await liveHolderOf(path.join(dataDir, LOCK_FILE));
  return holder === endpoint.pid ? { url: endpoint.url, pid: holder } : undefined;
}

async function probe(url: string): Promise<Error | undefined> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface SocketDirectory {
  dir: string;
  remove(): Promise<void>;
}

// No passwords: the socket sits in an owner-only directory. No TCP fallback, since any local user could
// reach a loopback port; a data directory too deep for a socket path gets a private temporary one.
async function socketDirectory(dataDir: string): Promise<SocketDirectory> {
  const inDataDir = path.join(dataDir, 'run');
  if (Buffer.byteLength(path.join(inDataDir, socketName)) <= maxSocketPath) {
    await mkdir(inDataDir, { recursive: true, mode: 0o700 });
    await chmod(inDataDir, 0o700);
    // Left by a killed process; the data-dir lock proves nobody serves it.
    await rm(path.join(inDataDir, socketName), { force: true });
    return { dir: inDataDir, remove: async () => undefined };
  }
  // mkdtemp creates the directory with mode 0700.
  const temporary = await mkdtemp(path.join(tmpdir(), 'fed-pg-'));
  if (Buffer.byteLength(path.join(temporary, socketName)) > maxSocketPath) {
    await rm(temporary, { recursive: true, force: true });
    throw new Error(
      `No path short enough for the embedded PostgreSQL's socket: ${dataDir} and the temporary directory ` +
        `${tmpdir()} are both too deep. Use a shorter DATA_DIR, or set TMPDIR to a shorter directory.`,
    );
  }
  return { dir: temporary, remove: () => rm(temporary, { recursive: true, force: true }) };
}

function socketUrl(socketDir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${socketPort}`;
}

function socketAddress(url: string): string {
  const params = new URL(url).searchParams;
  const dir = params.get('host');
  return dir ? path.join(dir, `.s.PGSQL.${params.get('port') ?? socketPort}`) : url;
}

// Others stop being told of the database first, then it stops, then the directory is let go.
async function stop(running: {
  worker: Worker;
  lock: DataDirLock;
  socket: SocketDirectory;
  dataDir: string;
}): Promise<void> {
  const { worker, lock, socket, dataDir } = running;
  try {
    await endpointFile(dataDir).withdraw();
    if (worker.threadId !== -1) {
      const stopped = expectMessage(worker, 'stopped');
      worker.postMessage({ type: 'stop' } satisfies PgliteWorkerCommand);
      await stopped;
    }
  } finally {
    await worker.terminate();
    await socket.remove();
    await lock.release();
  }
}

function expectMessage<T extends PgliteWorkerMessage['type']>(
  worker: Worker,
  type: T,
): Promise<Extract<PgliteWorkerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: PgliteWorkerMessage) => {
      settle();
      if (message.type === type) resolve(message as Extract<PgliteWorkerMessage, { type: T }>);
      else reject(workerFailure(message));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onExit = (code: number) => {
      settle();
      reject(new Error(`The embedded PostgreSQL exited (code ${code}).`));
    };
    const settle = () => worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

function workerFailure(message: PgliteWorkerMessage): Error {
  const error = new Error(
    message.type === 'failed' ? `The embedded PostgreSQL failed: ${message.message}` : `Unexpected ${message.type}`,
  );
  if (message.type === 'failed' && message.stack) error.stack = message.stack;
  return error;
}

function once(action: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= action());
}
