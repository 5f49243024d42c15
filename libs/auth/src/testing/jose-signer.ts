import { Worker } from 'node:worker_threads';

// jose is ESM-only, which Jest's CommonJS runtime cannot load on Node 20 (it can on Node >= 24.9),
// so the tests run real jose in a worker thread, where Node loads it natively.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const josePromise = import(pathToFileURL(workerData.josePath).href);
const privateKeys = new Map();
const operations = {
  async generate(jose, { kid }) {
    const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
    privateKeys.set(kid, privateKey);
    return { ...(await jose.exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  },
  async sign(jose, { kid, header, payload }) {
    return new jose.SignJWT(payload).setProtectedHeader(header).sign(privateKeys.get(kid));
  },
  async signWithSecret(jose, { secret, header, payload }) {
    return new jose.SignJWT(payload).setProtectedHeader(header).sign(new TextEncoder().encode(secret));
  },
  async unsecured(jose, { payload }) {
    return new jose.UnsecuredJWT(payload).encode();
  },
};
parentPort.on('message', async ({ id, operation, input }) => {
  try {
    parentPort.postMessage({ id, result: await operations[operation](await josePromise, input) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.stack) || error) });
  }
});
`;

type Operation = 'generate' | 'sign' | 'signWithSecret' | 'unsecured';

/** jose's key generation and signing, run in a worker thread; private keys never leave it. */
export class JoseSigner {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly worker: Worker;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { josePath: require.resolve('jose') } });
    this.worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (error !== undefined) waiter?.reject(new Error(error));
      else waiter?.resolve(result);
    });
    this.worker.unref();
  }

  generate(kid: string): Promise<Record<string, unknown>> {
    return this.call('generate', { kid }) as Promise<Record<string, unknown>>;
  }

  sign(kid: string, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    return this.call('sign', { kid, header, payload }) as Promise<string>;
  }

  /** An HMAC-signed JWT, e.g. HS256 keyed with an RSA public key (the algorithm-confusion attack). */
  signWithSecret(secret: string, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    return this.call('signWithSecret', { secret, header, payload }) as Promise<string>;
  }

  /** `alg: none`. */
  unsecured(payload: Record<string, unknown>): Promise<string> {
    return this.call('unsecured', { payload }) as Promise<string>;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private call(operation: Operation, input: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.worker.ref();
    return new Promise<unknown>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, operation, input });
    }).finally(() => {
      if (this.waiting.size === 0) this.worker.unref();
    });
  }
}
