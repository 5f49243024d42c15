import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { z } from 'zod';

export type McpAppsServerMode =
  | 'up'
  /** Every request answered 503. */
  | 'unavailable'
  /** Requests never answered (until `close()` or a mode change). */
  | 'hang';

/**
 * `json`: one JSON answer whose text goes on; `sse`: one SSE event whose data goes on; `trickle`: SSE
 * notifications of 16 KiB every few milliseconds, never the result.
 */
export interface McpFlood {
  method: 'tools/call' | 'resources/read';
  form: 'json' | 'sse' | 'trickle';
  /** 64 MiB by default. */
  totalBytes?: number;
}

export interface FloodRecord {
  bytes: number;
  ended: Promise<void>;
  /** The client closed the connection before the whole answer was written. */
  cut: boolean;
}

export interface McpAppsServerOptions {
  /** Requests without `Authorization: <value>` are answered 401. */
  authHeader?: string;
}

export const WEATHER_UI_URI = 'ui://weather/forecast.html';
export const WEATHER_HTML =
  '<!doctype html><html><body><h1 id="city"></h1><p>Weather view (MCP App)</p><script>/* app bridge */</script></body></html>';

/**
 * A real MCP Apps server on loopback (the official SDK over streamable HTTP): `show_weather` declares a
 * `ui://` resource, `echo` answers text, `broken` answers `isError`, `embedded_view` embeds its UI.
 */
export class McpAppsServer {
  mode: McpAppsServerMode = 'up';
  ui = { html: WEATHER_HTML, mimeType: RESOURCE_MIME_TYPE as string };
  /** The server fails only there. */
  failResourceReads = false;
  /** In order. */
  readonly methods: string[] = [];
  readonly authorizations: (string | undefined)[] = [];
  /** Written with backpressure. */
  flood?: McpFlood;
  readonly floods: FloodRecord[] = [];
  private readonly hung = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: McpAppsServerOptions,
  ) {}

  static async start(options: McpAppsServerOptions = {}): Promise<McpAppsServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const instance = new McpAppsServer(server, `http://127.0.0.1:${port}/mcp`, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void instance.handle(req, res));
    return instance;
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    this.authorizations.push(req.headers.authorization);
    if (body && typeof body === 'object' && 'method' in body) this.methods.push(String(body.method));
    if (this.mode === 'hang') {
      this.hung.add(res);
      res.on('close', () => this.hung.delete(res));
      return;
    }
    const reading = typeof body === 'object' && body !== null && 'method' in body && body.method === 'resources/read';
    if (this.mode === 'unavailable' || (reading && this.failResourceReads)) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    if (this.options.authHeader !== undefined && req.headers.authorization !== this.options.authHeader) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const message = body as { method?: unknown; id?: unknown } | undefined;
    if (this.flood && message?.method === this.flood.method && message.id !== undefined) {
      this.answerFlood(this.flood, message.id, res);
      return;
    }
    // Stateless: one MCP server and transport per request, as the SDK's stateless example does.
    const mcp = this.mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private answerFlood(flood: McpFlood, id: unknown, res: ServerResponse): void {
    const total = flood.totalBytes ?? 64 * 1024 * 1024;
    const record: FloodRecord = { bytes: 0, cut: false, ended: Promise.resolve() };
    this.floods.push(record);
    const result =
      flood.method === 'tools/call'
        ? ['{"content":[{"type":"text","text":"', '"}]}']
        : [`{"contents":[{"uri":"${WEATHER_UI_URI}","mimeType":"${RESOURCE_MIME_TYPE}","text":"<p>`, '"}]}'];
    const json = [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result[0]}`, `${result[1]}}`];
    const filler = Buffer.alloc(64 * 1024, 'x');
    const sse = flood.form !== 'json';
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    let closed = false;
    res.on('close', () => {
      closed = true;
      record.cut = !res.writableFinished;
    });
    const write = async (chunk: Buffer | string): Promise<void> => {
      record.bytes += Buffer.byteLength(chunk);
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      }
    };
    const notification = `event: message\ndata: ${JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x'.repeat(16 * 1024) },
    })}\n\n`;
    record.ended = (async () => {
      if (flood.form === 'trickle') {
        while (!closed && record.bytes < total) {
          await write(notification);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      } else {
        await write(sse ? `event: message\ndata: ${json[0]}` : json[0]);
        while (!closed && record.bytes < total) await write(filler);
        if (!closed) await write(sse ? `${json[1]}\n\n` : json[1]);
      }
      if (!closed) res.end();
      await new Promise<void>((resolve) => (closed ? resolve() : res.once('close', () => resolve())));
    })();
  }

  private mcpServer(): McpServer {
    const mcp = new McpServer({ name: 'weather-apps', version: '1.0.0' });
    registerAppTool(
      mcp as never,
      'show_weather',
      {
        description: 'Shows the weather forecast of a city in an interactive view.',
        inputSchema: { city: z.string() } as never,
        _meta: { ui: { resourceUri: WEATHER_UI_URI, visibility: ['model', 'app'] } },
      },
      (async ({ city }: { city: string }) => ({
        content: [{ type: 'text', text: `Sunny and 21 °C in ${city}.` }],
      })) as never,
    );
    registerAppResource(
      mcp as never,
      'Weather view',
      WEATHER_UI_URI,
      { _meta: { ui: { prefersBorder: true } } },
      (async () => ({
        contents: [
          {
            uri: WEATHER_UI_URI,
            mimeType: this.ui.mimeType,
            text: this.ui.html,
            _meta: { ui: { csp: { connectDomains: ['https://api.weather.example'] }, prefersBorder: true } },
          },
        ],
      })) as never,
    );
    mcp.registerTool(
      'echo',
      { description: 'Echoes its text.', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
    mcp.registerTool('broken', { description: 'Always reports an error.' }, async () => ({
      content: [{ type: 'text', text: 'the forecast service is down' }],
      isError: true,
    }));
    mcp.registerTool('embedded_view', { description: 'Returns its view as an embedded resource.' }, async () => ({
      content: [
        { type: 'text', text: 'Here is the view.' },
        {
          type: 'resource',
          resource: { uri: 'ui://weather/embedded.html', mimeType: this.ui.mimeType, text: this.ui.html },
        },
      ],
    }));
    return mcp;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
