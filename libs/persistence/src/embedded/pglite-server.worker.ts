// A worker thread: PGlite's queries run synchronously in WebAssembly and would stall HTTP and SSE, and
// its dynamic import() of the WebAssembly is refused by Jest's sandbox. The worker runs this text as it
// is (no build step), so it is plain JavaScript.

export interface PgliteWorkerData {
  /** Its node_modules provide @electric-sql/pglite and @electric-sql/pglite-socket. */
  resolveFrom: string;
  pgDataDir: string;
  /** In a directory only the data dir's owner may enter. */
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
const { NodeFS } = load('@electric-sql/pglite/nodefs');
const { chmodSync } = require('node:fs');
// Contrib extensions the migrations create (CREATE EXTENSION finds only those loaded here): message search.
const { pg_trgm } = load('@electric-sql/pglite/contrib/pg_trgm');
const { btree_gin } = load('@electric-sql/pglite/contrib/btree_gin');

// PGlite is one PostgreSQL session shared by every connection. pglite-socket's own queue runs their protocol
// messages one at a time but keeps a connection's messages together only inside a transaction block, and
// stops for good once a message throws (electric-sql/pglite#1046, still open in 0.2.17): one connection's
// Parse could replace another's unnamed statement between its Parse and Bind (an error, or another query's
// rows), a BEGIN could land inside another's query. This queue gives the session to one connection from a
// message until PGlite answers ReadyForQuery with the session idle; in a transaction block, until its end.
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);
const READY_FOR_QUERY = 0x5a;
const IDLE = 0x49;

class SessionQueue {
  constructor(db) {
    this.db = db;
    this.waiting = [];
    this.owner = null;
    this.ownerMidQuery = false;
    this.running = false;
  }

  enqueue(handlerId, message, onData) {
    return new Promise((resolve, reject) => {
      this.waiting.push({ handlerId, message, onData, resolve, reject });
      void this.run();
    });
  }

  getQueueLength() {
    return this.waiting.length;
  }

  clearQueueForHandler(handlerId) {
    this.waiting = this.waiting.filter((item) => {
      if (item.handlerId !== handlerId) return true;
      item.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  // The owner went away: what it left open is ended (a query without its Sync, a transaction rolled back).
  async clearTransactionIfNeeded(handlerId) {
    if (this.owner !== handlerId) return;
    try {
      if (this.ownerMidQuery) await this.db.runExclusive(() => this.db.execProtocolRawStream(SYNC, { onRawData() {} }));
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    } finally {
      this.owner = null;
      this.ownerMidQuery = false;
      void this.run();
    }
  }

  async run() {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const index = this.owner === null ? 0 : this.waiting.findIndex((item) => item.handlerId === this.owner);
        if (index === -1 || index >= this.waiting.length) return;
        const [item] = this.waiting.splice(index, 1);
        this.owner = item.handlerId;
        // The answer's last six bytes: ReadyForQuery is 'Z', length 5, the transaction status.
        const tail = new Uint8Array(6);
        let written = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                const keep = Math.min(6, data.length);
                tail.copyWithin(0, keep);
                tail.set(data.subarray(data.length - keep), 6 - keep);
                written += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          this.ownerMidQuery = false;
          if (!this.db.isInTransaction()) this.owner = null;
          item.reject(error);
          continue;
        }
        const ready = written >= 6 && tail[0] === READY_FOR_QUERY && new DataView(tail.buffer).getUint32(1) === 5;
        this.ownerMidQuery = !ready;
        if (ready && tail[5] === IDLE) this.owner = null;
        item.resolve(written);
      }
    } finally {
      this.running = false;
    }
  }
}

// Emscripten creates a file, then chmods it to the mode PostgreSQL asked for (0666 in PGlite's build), so the
// process umask does not reach PGlite's files: every mode it creates or sets is cut to its owner's bits here.
const OWNER_ONLY = ~0o077;

class OwnerOnlyNodeFS extends NodeFS {
  async init(pg, options) {
    const { emscriptenOpts } = await super.init(pg, options);
    const ownerOnly = (module) => {
      const { node_ops: nodeOps, stream_ops: streamOps } = module.FS.filesystems.NODEFS;
      const mknod = nodeOps.mknod;
      nodeOps.mknod = (parent, name, mode, dev) => mknod(parent, name, mode & OWNER_ONLY, dev);
      for (const ops of [nodeOps, streamOps]) {
        const setattr = ops.setattr;
        ops.setattr = (target, attr) =>
          setattr(target, attr.mode === undefined ? attr : { ...attr, mode: attr.mode & OWNER_ONLY });
      }
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [ownerOnly, ...(emscriptenOpts.preRun || [])] } };
  }
}

let db;
let server;
const fail = (error) => parentPort.postMessage({ type: 'failed', message: String(error && error.message), stack: error && error.stack });

async function start() {
  db = await PGlite.create({ fs: new OwnerOnlyNodeFS(workerData.pgDataDir), extensions: { pg_trgm, btree_gin } });
  server = new PGLiteSocketServer({ db, path: workerData.socketPath, maxConnections: workerData.maxConnections });
  // Each connection's handler is given the server's queue when it connects.
  server.queryQueue = new SessionQueue(db);
  await server.start();
  chmodSync(workerData.socketPath, 0o600);
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
