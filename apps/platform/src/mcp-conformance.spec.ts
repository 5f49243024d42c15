import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream, freePort } from '@fed/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';

// The official MCP conformance runner (@modelcontextprotocol/conformance) against POST /api/v1/mcp
// (docs/mcp-conformance.md). Its server scenarios connect without credentials, so they reach the
// endpoint through an edge of the test's own that adds the bearer token, as a deployment's edge sits in
// front of the service; PUBLIC_URL is that edge, so its Origin is the service's own.

const root = path.resolve(__dirname, '../../..');
const runner = path.join(root, 'node_modules/.bin/conformance');
const expectedFailures = path.join(root, 'tools/mcp-conformance-expected-failures.yml');

/** The server scenarios that apply to the endpoint (the rest: the expected-failures file). */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

describe('MCP conformance (official runner, server scenarios)', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let edge: Server;
  let edgeUrl: string;
  let outputDir: string;

  beforeAll(async () => {
    const edgePort = await freePort();
    edgeUrl = `http://localhost:${edgePort}`;
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [AgentProtocolsModule],
      env: { PUBLIC_URL: edgeUrl },
    });
    const token = await stack.token('mcp:all');
    edge = await startEdge(edgePort, stack.service.url, token);
    outputDir = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => edge?.close(resolve));
    edge?.closeAllConnections();
    await stack?.close();
    await upstream?.close();
    if (outputDir) rmSync(outputDir, { recursive: true, force: true });
  });

  it('passes every applicable server scenario; the others are the expected failures listed with reasons', async () => {
    const run = await runConformance([
      'server',
      '--url',
      `${edgeUrl}/api/v1/mcp`,
      '--expected-failures',
      expectedFailures,
      '-o',
      outputDir,
    ]);
    if (run.code !== 0)
      throw new Error(`the conformance runner failed (exit ${run.code}):\n${run.output.slice(-6000)}`);
    // The scenarios we claim: each ran, and none of their checks failed.
    const checks = checksByScenario(outputDir);
    for (const scenario of APPLICABLE) {
      const ran = checks.get(scenario);
      expect({ scenario, ran: ran !== undefined }).toEqual({ scenario, ran: true });
      const failed = ran?.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      expect({ scenario, failed }).toEqual({ scenario, failed: [] });
      expect(ran?.some((check) => check.status === 'SUCCESS')).toBe(true);
    }
  }, 120_000);
});

/** The test's edge: every request forwarded to the service with `Authorization` added, the response streamed back. */
async function startEdge(port: number, serviceUrl: string, token: string): Promise<Server> {
  const edge = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const forwarded = request(
      `${serviceUrl}${incoming.url ?? '/'}`,
      { method: incoming.method, headers: { ...incoming.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => edge.listen(port, resolve));
  return edge;
}

function runConformance(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(runner, args, { cwd: root, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

/** The runner's `checks.json` per scenario (`<output>/server-<scenario>-<timestamp>/checks.json`). */
function checksByScenario(outputDir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-.*$/.exec(entry)?.[1] ?? entry;
    const checks = JSON.parse(readFileSync(path.join(outputDir, entry, 'checks.json'), 'utf8')) as Check[];
    byScenario.set(scenario, checks);
  }
  return byScenario;
}
