import { testServiceUrls } from '@fed/config';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type ProcessHandle, buildDist, deleteRedisKeys, startRuntimeProcess } from '@fed/testing';
import { randomUUID } from 'node:crypto';

interface LogLine {
  level: string;
  msg: string;
}

const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

// agent-runtime as its main.ts runs it, in its own process: what it says at start about its turns.
describe('agent-runtime at start', () => {
  const redisUrl = testServiceUrls().redisUrl;
  const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
  let database: TestDatabase;
  let runtime: ProcessHandle | undefined;

  async function start(env: Record<string, string>): Promise<ProcessHandle> {
    runtime = await startRuntimeProcess(
      { databaseUrl: database.url, redisUrl, keyPrefix },
      { AGENT_GATEWAY_API_KEY: '', AGENT_CLIENT_ID: '', AGENT_CLIENT_SECRET: '', ...env },
    );
    await runtime.waitForOutput(/agent turns call the model gateway/, 30_000);
    return runtime;
  }

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
  }, 60_000);

  afterEach(async () => {
    runtime?.child.kill('SIGTERM');
    await runtime?.exited(15_000);
    runtime = undefined;
  });

  afterAll(async () => {
    await database?.drop();
    await deleteRedisKeys(redisUrl, keyPrefix);
  });

  it('warns that every turn will fail without gateway credentials, and when the gateway host does not resolve', async () => {
    const started = await start({ AGENT_GATEWAY_URL: 'http://llm-gateway.invalid:8080/llm/v1' });
    await started.waitForOutput(/does not resolve here/, 15_000);
    const lines = logLines(started.output());
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: 'agent turns call the model gateway at http://llm-gateway.invalid:8080/llm/v1 with no credentials',
      }),
    );
    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^AGENT_GATEWAY_API_KEY is not set, nor are AGENT_CLIENT_ID and AGENT_CLIENT_SECRET: .* every agent turn ends with model_unavailable/,
      ),
      expect.stringMatching(
        /^the model gateway's host llm-gateway\.invalid does not resolve here, .* set AGENT_GATEWAY_URL to llm-gateway's address/,
      ),
    ]);
    // It still runs: a compose stack starts agent-runtime before its gateway key exists.
    expect(started.child.exitCode).toBeNull();
  }, 60_000);

  it('says which gateway and credentials its turns use, and warns of nothing when they have what they need', async () => {
    const started = await start({
      AGENT_GATEWAY_URL: 'http://127.0.0.1:8083/llm/v1',
      AGENT_GATEWAY_API_KEY: 'fed_startkey',
    });
    // The host check ends quickly for an address; give a late warning the time to appear.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = logLines(started.output());
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: 'agent turns call the model gateway at http://127.0.0.1:8083/llm/v1 with the gateway key in AGENT_GATEWAY_API_KEY',
      }),
    );
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
    expect(started.output()).not.toContain('fed_startkey');
  }, 60_000);
});
