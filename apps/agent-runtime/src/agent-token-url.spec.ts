import { loadConfig } from '@fed/config';
import type { ChatCompletionChunk } from '@fed/contracts';
import { ClientsService } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { ScriptedUpstream } from '@fed/testing';
import { bootAuthService } from '@fed/sign-in/testing';
import { type RunningAgentRuntime, bootAgentRuntime } from './testing/boot-agent-runtime';
import { textAnswer } from './testing/model-answers';
import { readToEnd, startTurn, streamedText } from './testing/turn-fixture';

// AGENT_TOKEN_URL: with AGENT_CLIENT_ID instead of a gateway key, agent-runtime fetches its
// client-credentials token from auth-service's in-cluster address, while AUTH_URL (the issuer's base)
// stays the public host, which a pod may not be able to reach (deploy/README.md). Here the public host
// does not resolve at all.
const PUBLIC_URL = 'https://platform.example.invalid';
const ISSUER = `${PUBLIC_URL}/realms/federation`;

const finalOf = (chunks: readonly ChatCompletionChunk[]) => chunks.at(-1) as ChatCompletionChunk;

describe("agent runtime: its client-credentials token from auth-service's in-cluster address", () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let auth: RunningService;
  let clientSecret: string;
  const runtimes: RunningAgentRuntime[] = [];

  /** agent-runtime (with the gateway beside it) as a cluster configures it, the public host unreachable. */
  async function bootRuntime(env: Record<string, string>): Promise<RunningAgentRuntime> {
    const runtime = await bootAgentRuntime({
      databaseUrl: database.url,
      upstreamUrl: upstream.url,
      env: {
        AUTH_URL: PUBLIC_URL,
        AUTH_JWKS_URL: `${auth.url}/federation/auth/v1/jwks`,
        AGENT_GATEWAY_API_KEY: '',
        AGENT_CLIENT_ID: 'agent-runtime',
        AGENT_CLIENT_SECRET: clientSecret,
        ...env,
      },
    });
    runtimes.push(runtime);
    return runtime;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    auth = await bootAuthService({ databaseUrl: database.url, env: { PUBLIC_URL, AUTH_URL: PUBLIC_URL } });
    ({ clientSecret } = await auth.nest.get(ClientsService).create({
      clientId: 'agent-runtime',
      name: 'agent runtime',
      grantTypes: ['client_credentials'],
      scopes: ['llm:invoke'], // the gateway serves a client-credentials token with this scope only
    }));
  });

  afterAll(async () => {
    for (const runtime of runtimes) await runtime.close();
    await auth?.shutdown('test');
    await upstream?.close();
    await database?.drop();
  });

  beforeEach(() => upstream.reset());

  it('issues a token with the public issuer at the in-cluster address, and the gateway accepts it: the turn is answered', async () => {
    const tokenUrl = `${auth.url}/federation/auth/v1/token`;
    const runtime = await bootRuntime({ AGENT_TOKEN_URL: tokenUrl });
    expect(runtime.config.agent.tokenUrl).toBe(tokenUrl);

    upstream.enqueue(textAnswer(['Hello', ' from the model.']));
    const turn = await startTurn(runtime, { text: 'Hi!' });
    const chunks = await readToEnd(runtime.service.bus.runStream, turn.runId);
    expect(finalOf(chunks).choices[0].finishReason).toBe('stop');
    expect(streamedText(chunks)).toBe('Hello from the model.');
    expect(upstream.requests).toHaveLength(1);

    // What the agent showed the gateway: a token whose issuer is {auth_url}'s, not the address it was fetched from.
    const answer = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`agent-runtime:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const { access_token: token } = (await answer.json()) as { access_token: string };
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ iss: ISSUER, sub: expect.any(String) });
  });

  it('fetches the token from AUTH_URL when AGENT_TOKEN_URL is unset: there, where the public host is out of reach, every turn ends model_unavailable', async () => {
    const runtime = await bootRuntime({});
    expect(runtime.config.agent.tokenUrl).toBe(`${PUBLIC_URL}/federation/auth/v1/token`);

    const turn = await startTurn(runtime, { text: 'Hi!' });
    const chunks = await readToEnd(runtime.service.bus.runStream, turn.runId, 30_000);
    expect(finalOf(chunks).error).toMatchObject({
      code: 'model_unavailable',
      message: expect.stringMatching(/auth service could not be reached for a token/),
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it("is refused by a gateway that expects another issuer: the token's issuer is what the gateway checks", async () => {
    // The gateway beside this runtime takes the in-cluster address for {auth_url}, so expects that issuer.
    const runtime = await bootRuntime({ AUTH_URL: auth.url, AGENT_TOKEN_URL: `${auth.url}/federation/auth/v1/token` });
    expect(runtime.config.auth.issuer).not.toBe(ISSUER);

    const turn = await startTurn(runtime, { text: 'Hi!' });
    const chunks = await readToEnd(runtime.service.bus.runStream, turn.runId);
    expect(finalOf(chunks).error).toMatchObject({ code: 'model_unavailable', message: expect.stringMatching(/401/) });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses an AGENT_TOKEN_URL that is not an http(s) URL, naming the variable', () => {
    const env = { DATABASE_URL: database.url, REDIS_URL: 'redis://unused:6379' };
    expect(
      loadConfig('agent-runtime', { ...env, AGENT_TOKEN_URL: 'http://auth-service:8080/token' }).agent.tokenUrl,
    ).toBe('http://auth-service:8080/token');
    expect(() => loadConfig('agent-runtime', { ...env, AGENT_TOKEN_URL: 'ftp://auth-service/token' })).toThrow(
      /AGENT_TOKEN_URL: "ftp:\/\/auth-service\/token" is invalid .*allowed: an http or https URL/,
    );
    expect(() => loadConfig('agent-runtime', { ...env, AGENT_TOKEN_URL: 'auth-service:8080' })).toThrow(
      /AGENT_TOKEN_URL/,
    );
  });
});
