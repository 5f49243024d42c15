// PGlite runs in a worker thread, for two reasons. Its queries execute synchronously in WebAssembly,
// so on the app's thread every query would stall HTTP and SSE. And its CommonJS build loads its
// WebAssembly through dynamic import(), which Jest's module sandbox refuses; a worker thread is
// plain Node. The worker runs this source text as it is (no build step, no coverage instrumentation),
// so it is JavaScript, kept small; the messages are typed below.

export interface PgliteWorkerData {
  /** A file whose node_modules provide @electric-sql/pglite and @electric-sql/pglite-socket. */
  resolveFrom: string;
  pgDataDir: string;
  /** The Unix socket to listen on, in a directory only the data dir's owner may enter. */
  socketPath: string;
  maxConnections: number;
}

export type PgliteWorkerMessage =
  { type: 'listening'; address: string } | { type: 'stopped' } | { type: 'failed'; message: string; stack?: string };

export type PgliteWorkerCommand = { type: 'stop' };

export const pgliteServerWorkerSource = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const load = createRequire(workerData.resolveFrom);
const { PGlite } = load('@electric-sql/pglite');
const { PGLiteSocketServer } = load('@electric-sql/pglite-socket');
// Contrib extensions the migrations create (CREATE EXTENSION finds only those loaded here): message search.
const { pg_trgm } = load('@electric-sql/pglite/contrib/pg_trgm');
const { btree_gin } = load('@electric-sql/pglite/contrib/btree_gin');

let db;
let server;
const fail = (error) => parentPort.postMessage({ type: 'failed', message: String(error && error.message), stack: error && error.stack });

async function start() {
  db = await PGlite.create({ dataDir: workerData.pgDataDir, extensions: { pg_trgm, btree_gin } });
  server = new PGLiteSocketServer({ db, path: workerData.socketPath, maxConnections: workerData.maxConnections });
  await server.start();
  parentPort.postMessage({ type: 'listening', address: server.getServerConn() });
}

// A clean close checkpoints, so the next start needs no recovery.
async function stop() {
  if (server) await server.stop();
  if (db && !db.closed) await db.close();
  parentPort.postMessage({ type: 'stopped' });
}

parentPort.on('message', (command) => {
  if (command.type === 'stop') stop().catch(fail);
});
start().catch(fail);
`;
