import { chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { type DataDirLock, lockDataDir } from './data-dir.lock';
import {
  type PgliteWorkerCommand,
  type PgliteWorkerData,
  type PgliteWorkerMessage,
  pgliteServerWorkerSource,
} from './pglite-server.worker';

export interface EmbeddedPostgresOptions {
  /** The app's data directory; PostgreSQL keeps its files in `<dataDir>/pg`. */
  dataDir: string;
  /** Socket connections served at once; keep it above the sum of all pool sizes. */
  maxConnections?: number;
}

export interface EmbeddedPostgres {
  /** postgres:// URL for the ordinary `pg` driver and TypeORM. */
  url: string;
  stop(): Promise<void>;
}

const host = '127.0.0.1';
// PostgreSQL clients look for `<dir>/.s.PGSQL.<port>`; sun_path holds at most 107 bytes.
const socketPort = 5432;
const maxSocketPath = 100;

// PGlite (one PostgreSQL session) served over TCP by pglite-socket, so the rest of the code uses the
// same `pg` driver as in production. The socket server serializes its clients: while one
// connection is in a transaction, the others wait.
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const lock = await lockDataDir(path.join(dataDir, 'pg.lock'), dataDir);
  // The embedded server has no passwords: a Unix socket in a directory only this user may enter keeps
  // other local users out. Loopback TCP is the fallback when the path is too long for a socket.
  const socketDir = path.join(dataDir, 'run');
  const socketPath = path.join(socketDir, `.s.PGSQL.${socketPort}`);
  const useSocket = Buffer.byteLength(socketPath) <= maxSocketPath;
  if (useSocket) {
    await mkdir(socketDir, { recursive: true, mode: 0o700 });
    await chmod(socketDir, 0o700);
    // A socket left by a process that was killed; the data-dir lock proves nobody is serving it.
    await rm(socketPath, { force: true });
  }
  const workerData: PgliteWorkerData = {
    resolveFrom: __filename,
    pgDataDir: path.join(dataDir, 'pg'),
    listen: useSocket ? { path: socketPath } : { host },
    maxConnections: options.maxConnections ?? 10,
  };
  const worker = new Worker(pgliteServerWorkerSource, { eval: true, workerData });
  try {
    const address = await expectMessage(worker, 'listening');
    const url = useSocket ? socketUrl(socketDir) : connectionUrl(address.address);
    return { url, stop: once(() => stop(worker, lock)) };
  } catch (error) {
    await worker.terminate();
    await lock.release();
    throw error;
  }
}

function socketUrl(socketDir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${socketPort}`;
}

// The address is "host:port", with the port the system chose.
function connectionUrl(address: string): string {
  return `postgres://postgres@${host}:${address.split(':').pop()}/postgres`;
}

async function stop(worker: Worker, lock: DataDirLock): Promise<void> {
  try {
    if (worker.threadId !== -1) {
      const stopped = expectMessage(worker, 'stopped');
      worker.postMessage({ type: 'stop' } satisfies PgliteWorkerCommand);
      await stopped;
    }
  } finally {
    await worker.terminate();
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
