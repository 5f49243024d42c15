import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** Ids in hex. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpKeyValue {
  key: string;
  value?: OtlpValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  links?: { traceId: string; spanId: string }[];
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const valueOf = (value: OtlpValue | undefined): unknown => {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
};

const attributesOf = (list: OtlpKeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));

/** OTLP/HTTP JSON exports are decoded into `spans`; protobuf ones only counted (enough for a benchmark's sink). */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  exports = 0;
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    /** OTEL_EXPORTER_OTLP_ENDPOINT of the services that export here. */
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void receiver.receive(req, res));
    return receiver;
  }

  /** Rejects with what arrived after `timeoutMs`. */
  waitFor(done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs: number): Promise<ReceivedSpan[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done(this.spans)) return;
        cleanup();
        resolve([...this.spans]);
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = this.spans.map((s) => `${s.service} ${s.name} ${s.traceId}`).join('\n');
        reject(new Error(`the spans looked for did not arrive within ${timeoutMs} ms; received:\n${seen}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    this.exports++;
    let body = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
    const json = String(req.headers['content-type']).startsWith('application/json');
    if (json) this.record(JSON.parse(body.toString('utf8')) as OtlpExport);
    // An empty ExportTraceServiceResponse: `{}` in JSON, no bytes in protobuf.
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
    res.end(json ? '{}' : undefined);
    for (const waiter of [...this.waiters]) waiter();
  }

  private record(exported: OtlpExport): void {
    for (const resourceSpans of exported.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
          });
        }
      }
    }
  }
}
