import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerByDefault } from './default-answers';
import { Exchange } from './exchange';
import { playStep } from './play-step';
import type { RecordedRequest, UpstreamStep } from './upstream-step';

export interface ScriptedUpstreamOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  host?: string;
  /** Before every default answer's first byte. */
  latencyMs?: number;
  /** Default true; benchmarks turn it off. `requests` then stays empty, while waitForRequests still counts. */
  recordRequests?: boolean;
}

const DEFAULT_WAIT_MS = 5_000;

/** Answers from a queue of scripted steps, else with a deterministic echo, and records what it received. */
export class ScriptedUpstream {
  private readonly server: http.Server;
  private readonly latencyMs: number;
  private readonly recordRequests: boolean;
  private steps: UpstreamStep[] = [];
  private recorded: RecordedRequest[] = [];
  private received = 0;
  private aborts: RecordedRequest[] = [];
  private abortsTaken = 0;
  // Kept across reset(), so ids stay unique for the server's life.
  private serial = 0;
  private readonly waiters = new Set<() => void>();
  private closing: Promise<void> | undefined;
  private knownUrl = '';

  private constructor(options: ScriptedUpstreamOptions) {
    this.latencyMs = options.latencyMs ?? 0;
    this.recordRequests = options.recordRequests ?? true;
    this.server = http.createServer({ noDelay: true }, (req, res) => this.receive(req, res));
    // Longer than the clients' idle pools (undici 4 s, Node 5 s), so the server never closes a socket a
    // client is about to reuse; headersTimeout must exceed it.
    this.server.keepAliveTimeout = 65_000;
    this.server.headersTimeout = 66_000;
  }

  static async start(options: ScriptedUpstreamOptions = {}): Promise<ScriptedUpstream> {
    const upstream = new ScriptedUpstream(options);
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      upstream.server.once('error', reject);
      upstream.server.listen(options.port ?? 0, host, () => {
        upstream.server.off('error', reject);
        resolve();
      });
    });
    const { port } = upstream.server.address() as AddressInfo;
    upstream.knownUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return upstream;
  }

  /** Without a trailing slash. */
  get url(): string {
    return this.knownUrl;
  }

  /** Since start or reset(), oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.recorded;
  }

  /** To assert that a test used all it scripted. */
  get pendingSteps(): number {
    return this.steps.length;
  }

  /** Each request takes the first queued step whose `path` it matches. */
  enqueue(...steps: UpstreamStep[]): void {
    this.steps.push(...steps);
  }

  reset(): void {
    this.steps = [];
    this.recorded = [];
    this.received = 0;
    this.aborts = [];
    this.abortsTaken = 0;
  }

  /** Counts since start or reset(). */
  waitForRequests(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<readonly RecordedRequest[]> {
    return this.waitFor(
      () => (this.received >= count ? this.recorded : undefined),
      timeoutMs,
      () => `${count} requests (received ${this.received})`,
    );
  }

  /** Each call takes the next aborted request, including one that went away before the call. */
  waitForAbort(timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest> {
    return this.waitFor(
      () => (this.abortsTaken < this.aborts.length ? this.aborts[this.abortsTaken++] : undefined),
      timeoutMs,
      () => 'a client to abort',
    );
  }

  /** Stalled answers included. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      const rawBody = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const path = req.url ?? '/';
      const query = path.indexOf('?');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        rawBody,
        json: parseJson(rawBody),
        receivedAt: Date.now(),
        aborted: false,
      };
      this.answer(new Exchange(request, query === -1 ? path : path.slice(0, query), res));
    });
  }

  private answer(exchange: Exchange): void {
    const { request, res } = exchange;
    if (this.recordRequests) this.recorded.push(request);
    this.received++;
    res.on('close', () => {
      exchange.closed = true;
      if (res.writableFinished || exchange.hungUp || this.closing) return;
      request.aborted = true;
      this.aborts.push(request);
      this.notify();
    });

    const step = this.takeStep(exchange.pathname, request.path);
    const serial = ++this.serial;
    if (step) void playStep(step, exchange);
    else if (this.latencyMs > 0) void exchange.pause(this.latencyMs).then(() => answerByDefault(exchange, serial));
    else answerByDefault(exchange, serial);
    if (this.waiters.size > 0) this.notify();
  }

  private takeStep(pathname: string, path: string): UpstreamStep | undefined {
    const index = this.steps.findIndex(
      (step) => step.path === undefined || step.path === pathname || step.path === path,
    );
    return index === -1 ? undefined : this.steps.splice(index, 1)[0];
  }

  private notify(): void {
    for (const check of this.waiters) check();
  }

  private waitFor<T>(ready: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = ready();
        if (value === undefined) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`ScriptedUpstream: waited ${timeoutMs} ms for ${what()}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}

function parseJson(rawBody: Buffer): unknown {
  if (rawBody.length === 0) return undefined;
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
}
