import 'reflect-metadata';
import { type HostedApp, loadConfig, testServiceUrls } from '@fed/config';
import { apiKeysServiceFor } from '@fed/gateway';
import { ClientsService } from '@fed/identity';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService, createServiceApp } from '@fed/server';
import { buildDist, cleanEnv, deleteRedisKeys, freePort, startProcess } from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { AuthServiceModule, LlmGatewayModule } from './platform-features';

const cli = 'dist/apps/platformctl/src/main.js';

/**
 * Distributed, on Redis: keys made and revoked with platformctl reach a running gateway at once;
 * a client-credentials token of auth-service is accepted, and refused once revoked; the routing file
 * is re-read without a restart.
 */
describe('model gateway: keys, tokens and routing changes across processes', () => {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  let database: TestDatabase;
  let auth: RunningService;
  let gateway: RunningService;
  let gatewayUrl: string;
  let routingFile: string;

  async function start(
    app: HostedApp,
    features: [typeof AuthServiceModule | typeof LlmGatewayModule],
    env: Record<string, string>,
  ) {
    const port = await freePort();
    const config = loadConfig(app, {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...env,
    });
    return createServiceApp({ app, features, config, logger: createLogger({ service: app, level: 'silent' }) });
  }

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    auth = await start('auth-service', [AuthServiceModule], { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    routingFile = path.join(await mkdtemp(path.join(tmpdir(), 'routing-')), 'routing.yaml');
    await writeFile(
      routingFile,
      'models:\n  - name: assistant\n    aliases: [default]\n    deployments: [{ provider: demo, model: demo }]\n',
    );
    gateway = await start('llm-gateway', [LlmGatewayModule], {
      AUTH_URL: auth.config.auth.authUrl,
      LLM_GATEWAY_ROUTING_FILE: routingFile,
    });
    gatewayUrl = `${gateway.url}/llm/v1`;
  }, 60_000);

  afterAll(async () => {
    await gateway?.shutdown('test');
    await auth?.shutdown('test');
    await database?.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
  });

  async function platformctl(args: string[]) {
    const handle = startProcess(
      cli,
      args,
      cleanEnv({ DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.keyPrefix }),
    );
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
  }

  const ask = (apiKey: string) =>
    new OpenAI({ baseURL: gatewayUrl, apiKey, maxRetries: 0 }).chat.completions.create({
      model: 'assistant',
      messages: [{ role: 'user', content: 'hello' }],
    });

  it('platformctl apikeys create, list and revoke; the revoked key is refused within a second', async () => {
    const created = await platformctl([
      'apikeys',
      'create',
      '--name',
      'ci bot',
      '--rpm',
      '100',
      '--model',
      'assistant',
    ]);
    expect(created.code).toBe(0);
    const apiKey = /api_key: (fed_[A-Za-z0-9_-]{43})/.exec(created.output)?.[1] as string;
    const id = /id: ([0-9a-f-]{36})/.exec(created.output)?.[1] as string;
    expect(apiKey).toBeDefined();
    expect((await ask(apiKey)).choices[0]?.message.content).toMatch(/demo model/);

    const listed = await platformctl(['apikeys', 'list']);
    expect(listed.output).toContain(id);
    expect(listed.output).toContain('models=assistant');
    expect(listed.output).toContain('rpm=100');
    expect(listed.output).not.toContain(apiKey);

    const revoked = await platformctl(['apikeys', 'revoke', 'ci bot']);
    expect(revoked.code).toBe(0);
    expect(revoked.output).toContain(`revoked ${id}`);
    const started = Date.now();
    for (;;) {
      const refused = await ask(apiKey).then(
        () => false,
        (error: unknown) => error instanceof OpenAI.AuthenticationError,
      );
      if (refused) break;
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await platformctl(['apikeys', 'revoke', id])).code).toBe(1);
  });

  it('refuses bad limits at creation', async () => {
    const bad = await platformctl(['apikeys', 'create', '--name', 'x', '--network', '10.0.0.0/99']);
    expect(bad.code).toBe(1);
    expect(bad.output).toContain('refused');
  });

  /** A service account of auth-service with `scopes`, and its client-credentials token (no scope asked: all of them). */
  async function serviceAccount(clientId: string, scopes: string[]) {
    const { clientSecret } = await auth.nest.get(ClientsService).create({
      clientId,
      name: clientId,
      grantTypes: ['client_credentials'],
      scopes,
    });
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const tokenResponse = await fetch(`${auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    return { basic, token };
  }

  it('refuses a client-credentials token without llm:invoke, whatever its other scopes: 403 permission_error, in each family', async () => {
    const { token } = await serviceAccount('reporting', ['logs:read', 'users:manage', 'master:manage']);
    const refusal = await ask(token).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refusal).toMatchObject({ status: 403, code: 'insufficient_scope', type: 'permission_error' });
    expect((refusal as Error).message).toContain('llm:invoke');
    const models = await new OpenAI({ baseURL: gatewayUrl, apiKey: token, maxRetries: 0 }).models.list().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(models).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const one = await new OpenAI({ baseURL: gatewayUrl, apiKey: token, maxRetries: 0 }).models
      .retrieve('assistant')
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(one).toMatchObject({ status: 403, code: 'insufficient_scope' });
    const oneOfAnthropic = await fetch(`${gatewayUrl}/models/assistant`, {
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
    });
    expect(oneOfAnthropic.status).toBe(403);
    expect(await oneOfAnthropic.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    const messages = await fetch(`${gatewayUrl}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'assistant', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(messages.status).toBe(403);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
  });

  it('accepts a client-credentials token with llm:invoke (as agent-runtime is given), and refuses it once revoked', async () => {
    const { basic, token } = await serviceAccount('agent-runtime', ['llm:invoke']);
    expect((await ask(token)).choices[0]?.message.content).toMatch(/demo model/);
    const client = new OpenAI({ baseURL: gatewayUrl, apiKey: token, maxRetries: 0 });
    expect((await client.models.retrieve('assistant')).id).toBe('assistant');

    await fetch(`${auth.url}/federation/auth/v1/revoke`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${token}`,
    });
    const started = Date.now();
    for (;;) {
      const refused = await ask(token).then(
        () => false,
        (error: unknown) => error instanceof OpenAI.AuthenticationError,
      );
      if (refused) break;
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('re-reads the routing file when it changes, and keeps the old routing when the new file is invalid', async () => {
    const keys = apiKeysServiceFor(gateway.nest.get(DataSource), { keyPrefix: 'fed_' });
    const { apiKey } = await keys.create({ name: 'routing' });
    const client = new OpenAI({ baseURL: gatewayUrl, apiKey, maxRetries: 0 });
    const ids = async () => (await client.models.list()).data.map((m) => m.id);
    expect(await ids()).toContain('assistant');
    const file = routingFile;
    await writeFile(file, 'models:\n  - name: renamed\n    deployments: [{ provider: demo, model: demo }]\n');
    const until = Date.now() + 5000;
    while (!(await ids()).includes('renamed') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await ids()).toContain('renamed');
    expect(await ids()).not.toContain('assistant');
    await writeFile(file, 'models: [{ name: broken, deployments: [{ provider: nowhere, model: x }] }]\n');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await ids()).toContain('renamed');
  });
});
