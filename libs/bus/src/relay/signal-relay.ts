import { type RelayedSignal, type SignalPayloads, type SignalTopic, signalTopics } from '@fed/contracts';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ProcessFile, type ProcessRecord } from '@fed/persistence';
import { type SignalPublisher } from '../ports';

// The in-process bus is out of reach of other processes: this loopback endpoint lets a local tool
// (platformctl) publish on it, its address and secret in an owner-only file in the shared data dir.

export const SIGNAL_RELAY_FILE = 'signal-relay.json';

interface SignalRelayEndpointV1 extends ProcessRecord {
  url: string;
  /** Any local user can reach a loopback port; only the owner can read the file. */
  secret: string;
}

const relayFile = (dataDir: string) =>
  ProcessFile.in<SignalRelayEndpointV1>(
    dataDir,
    SIGNAL_RELAY_FILE,
    (value) => typeof value.url === 'string' && typeof value.secret === 'string',
  );

export interface SignalRelay {
  url: string;
  /** Withdraws the file first. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
const SEND_TIMEOUT_MS = 5000;

export async function startSignalRelay(signals: SignalPublisher, options: { dataDir: string }): Promise<SignalRelay> {
  const secret = randomBytes(32).toString('base64url');
  const server = createServer((request, response) => void relay(request, response, signals, secret));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await relayFile(options.dataDir).publish({ url, secret });
  } catch (error) {
    server.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= (async () => {
        await relayFile(options.dataDir).withdraw();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
  };
}

export class RelayedSignals implements SignalPublisher {
  constructor(
    readonly pid: number,
    readonly url: string,
    private readonly secret: string,
  ) {}

  publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void> {
    return this.send({ version: 1, topic, payload } as RelayedSignal);
  }

  publishRetained<T extends SignalTopic>(topic: T, payload: SignalPayloads[T], untilSeconds: number): Promise<void> {
    return this.send({ version: 1, topic, payload, retainUntil: untilSeconds } as RelayedSignal);
  }

  private async send(signal: RelayedSignal): Promise<void> {
    const response = await fetch(`${this.url}/signals`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(signal),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.status !== 204) throw new Error(`the signal relay at ${this.url} answered ${response.status}`);
  }
}

/** Undefined when no file, or one left by a process that is gone. */
export async function findSignalRelay(dataDir: string): Promise<RelayedSignals | undefined> {
  const endpoint = await relayFile(dataDir).readLive();
  return endpoint && new RelayedSignals(endpoint.pid, endpoint.url, endpoint.secret);
}

async function relay(
  request: IncomingMessage,
  response: ServerResponse,
  signals: SignalPublisher,
  secret: string,
): Promise<void> {
  const answer = (status: number, message?: string) => {
    response.writeHead(status, message ? { 'content-type': 'text/plain; charset=utf-8' } : {});
    response.end(message);
  };
  if (request.method !== 'POST' || request.url !== '/signals') return answer(404, 'not found');
  if (!sameSecret(request.headers.authorization, `Bearer ${secret}`)) return answer(401, 'unauthorized');
  const body = await readBody(request);
  if (body === undefined) return answer(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
  const signal = parseRelayedSignal(body);
  if (!signal) return answer(400, 'expected a RelayedSignalV1');
  try {
    if (signal.retainUntil === undefined) await signals.publish(signal.topic, signal.payload);
    else await signals.publishRetained(signal.topic, signal.payload, signal.retainUntil);
  } catch (error) {
    return answer(503, error instanceof Error ? error.message : String(error));
  }
  answer(204);
}

// Hashed first: timingSafeEqual needs equal lengths, and the secret's length must not leak.
function sameSecret(given: string | undefined, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// The payload's fields are for its receivers to check, as for signals from Redis.
function parseRelayedSignal(body: string): RelayedSignal | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.version !== 1) return undefined;
  if (typeof value.topic !== 'string' || !(signalTopics as readonly string[]).includes(value.topic)) return undefined;
  if (!isObject(value.payload)) return undefined;
  if (value.retainUntil !== undefined && !Number.isFinite(value.retainUntil)) return undefined;
  return value as unknown as RelayedSignal;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
