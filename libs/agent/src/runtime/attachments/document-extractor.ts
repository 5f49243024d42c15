import { Worker } from 'node:worker_threads';

// One extraction at a time per worker. Libraries load through their CommonJS entries: a worker thread is plain
// Node, whatever runs the caller (Jest included).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
async function pdfText(bytes) {
  const { extractText, getDocumentProxy } = require(workerData.unpdf);
  let document;
  try {
    document = await getDocumentProxy(bytes, { verbosity: 0 });
    const { text } = await extractText(document, { mergePages: false });
    return text.map((page) => page.trim()).join('\\n\\n');
  } finally {
    if (document) await document.loadingTask.destroy().catch(() => undefined);
  }
}
async function docxText(bytes) {
  const { extractRawText } = require(workerData.mammoth);
  return (await extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value;
}
parentPort.on('message', async ({ kind, bytes }) => {
  try {
    parentPort.postMessage({ text: kind === 'pdf' ? await pdfText(bytes) : await docxText(bytes) });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

export type DocumentKind = 'pdf' | 'docx';

export interface DocumentExtractorOptions {
  /** Extractions running at once; more wait for a worker (their time limit runs meanwhile). */
  maxWorkers: number;
  /** How long a worker that finished is kept for the next document before it is ended. */
  idleMs: number;
  /** V8 old-generation limit of a worker: a document that needs more fails, the process does not. */
  maxHeapMb: number;
}

/**
 * PDF and DOCX text, extracted in worker threads: neither library stops when asked (PDF.js kept inflating a PDF bomb
 * after destroy; mammoth has no limit), and both block the thread they run on. `terminate` stops even a busy loop,
 * and the worker's heap limit bounds a document's memory. Idle workers are kept `idleMs` to amortise startup.
 */
export class DocumentExtractor {
  private readonly idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];
  private readonly waiting: (() => void)[] = [];
  private running = 0;

  constructor(private readonly options: DocumentExtractorOptions = { maxWorkers: 2, idleMs: 60_000, maxHeapMb: 512 }) {}

  /** A PDF's pages joined by blank lines, or a DOCX's raw text; rejects with the signal's reason on abort. */
  async text(kind: DocumentKind, bytes: Buffer, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    await this.slot(signal);
    let worker: Worker | undefined;
    try {
      worker = this.takeIdle() ?? this.start();
      const text = await this.run(worker, kind, bytes, signal);
      this.keepIdle(worker);
      worker = undefined;
      return text;
    } finally {
      // Aborted, failed or out of memory: the worker is not trusted with another document.
      if (worker) void worker.terminate();
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Ends the idle workers (a running extraction ends with its own). */
  async close(): Promise<void> {
    const idle = this.idle.splice(0);
    await Promise.all(
      idle.map(({ worker, timer }) => {
        clearTimeout(timer);
        return worker.terminate();
      }),
    );
  }

  private slot(signal: AbortSignal | undefined): Promise<void> {
    if (this.running < this.options.maxWorkers) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', give);
        this.running++;
        resolve();
      };
      const give = () => {
        this.waiting.splice(this.waiting.indexOf(go), 1);
        reject(signal?.reason);
      };
      this.waiting.push(go);
      signal?.addEventListener('abort', give, { once: true });
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { unpdf: require.resolve('unpdf'), mammoth: require.resolve('mammoth') },
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
    });
    worker.unref();
    // An idle worker that exits is dropped, so no document waits on it for an answer.
    worker.once('exit', () => {
      const index = this.idle.findIndex((entry) => entry.worker === worker);
      if (index >= 0) clearTimeout(this.idle.splice(index, 1)[0]?.timer);
    });
    return worker;
  }

  private run(worker: Worker, kind: DocumentKind, bytes: Buffer, signal: AbortSignal | undefined): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (answer: { text?: string; error?: string }) => {
        done();
        if (typeof answer.text === 'string') resolve(answer.text);
        else reject(new Error(answer.error ?? 'the document could not be read'));
      };
      const onError = (error: Error) => {
        done();
        reject(error);
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`the document worker stopped (exit code ${code})`));
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      // PDF.js takes ownership of the array it is given: the worker gets a copy, moved, not copied again.
      const copy = new Uint8Array(bytes);
      worker.postMessage({ kind, bytes: copy }, [copy.buffer]);
    });
  }

  private takeIdle(): Worker | undefined {
    const entry = this.idle.pop();
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    return entry.worker;
  }

  private keepIdle(worker: Worker): void {
    // Its 'exit' takes it off the idle list.
    const timer = setTimeout(() => void worker.terminate(), this.options.idleMs);
    timer.unref();
    this.idle.push({ worker, timer });
  }
}
