import Anthropic from '@anthropic-ai/sdk';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { type RunningGateway, bootGateway } from './testing/boot-gateway';

/** Every gateway status of the spec, in the native error format of the endpoint's family. */
describe('model gateway: errors in each family', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let apiKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    gateway = await bootGateway({
      databaseUrl: database.url,
      routing: {
        providers: [
          {
            name: 'oai',
            type: 'openai',
            baseUrl: `${upstream.url}/v1`,
            apiKey: 'k',
            embeddings: true,
          },
          { name: 'ant', type: 'anthropic', baseUrl: upstream.url, apiKey: 'k' },
          { name: 'dead', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' },
          { name: 'slow', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'k', timeoutSeconds: 1 },
        ],
        models: [
          { name: 'gpt-test', deployments: [{ provider: 'oai', model: 'gpt-4o' }] },
          { name: 'claude-test', deployments: [{ provider: 'ant', model: 'claude-haiku-4-5' }] },
          { name: 'unreachable', deployments: [{ provider: 'dead', model: 'x' }] },
          { name: 'stalling', deployments: [{ provider: 'slow', model: 'gpt-4o' }] },
        ],
        retries: { attempts: 1, initialBackoffMs: 0 },
      },
    });
    apiKey = await gateway.createKey();
  });

  afterAll(async () => {
    await gateway?.service.shutdown('test');
    await upstream?.close();
    await database?.drop();
  });

  beforeEach(() => upstream.reset());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const messagesHeaders = { 'anthropic-version': '2023-06-01' };

  async function expectChatError(res: Response, status: number, type: string, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type, code });
    expect(body.error.message.length).toBeGreaterThan(0);
    return body;
  }

  async function expectMessagesError(res: Response, status: number, type: string) {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe(type);
    expect(body.error.message.length).toBeGreaterThan(0);
    return body;
  }

  describe('400', () => {
    it('refuses a request without model, in both families', async () => {
      await expectChatError(
        await post('/chat/completions', { messages: [] }),
        400,
        'invalid_request_error',
        'model_required',
      );
      await expectMessagesError(
        await post('/messages', { messages: [], max_tokens: 5 }, messagesHeaders),
        400,
        'invalid_request_error',
      );
    });

    it('refuses invalid JSON, a non-object body and a deeply nested one', async () => {
      await expectChatError(await post('/chat/completions', '{"model":'), 400, 'invalid_request_error', 'invalid_json');
      await expectChatError(await post('/chat/completions', '[1,2]'), 400, 'invalid_request_error', 'invalid_json');
      const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
      await expectChatError(
        await post('/chat/completions', `{"model":"gpt-test","messages":[{"role":"user","content":"x"}],"x":${deep}}`),
        400,
        'invalid_request_error',
        'invalid_json',
      );
      await expectMessagesError(await post('/messages', 'nope', messagesHeaders), 400, 'invalid_request_error');
    });

    it('refuses an unavailable model with 400, not 404', async () => {
      await expectChatError(
        await post('/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
        400,
        'invalid_request_error',
        'model_not_found',
      );
      await expectMessagesError(
        await post('/messages', { model: 'no-such-model', max_tokens: 5, messages: [] }, messagesHeaders),
        400,
        'invalid_request_error',
      );
    });

    it('requires the anthropic-version header on the messages family', async () => {
      await expectMessagesError(
        await post('/messages', { model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
        400,
        'invalid_request_error',
      );
      await expectMessagesError(
        await post('/messages/count_tokens', { model: 'claude-test', messages: [] }),
        400,
        'invalid_request_error',
      );
    });

    it("passes a provider's refusal (a content filter) on as a 400 with its message", async () => {
      upstream.enqueue({
        kind: 'status',
        status: 400,
        body: {
          error: { message: 'blocked by the content filter', type: 'invalid_request_error', code: 'content_filter' },
        },
      });
      const body = await expectChatError(
        await post('/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }),
        400,
        'invalid_request_error',
        'content_filter',
      );
      expect(body.error.message).toContain('blocked by the content filter');
    });

    it('refuses a request the other family cannot express faithfully', async () => {
      await expectChatError(
        await post('/chat/completions', { model: 'claude-test', n: 3, messages: [{ role: 'user', content: 'x' }] }),
        400,
        'invalid_request_error',
        'unsupported_parameter',
      );
      expect(upstream.requests).toHaveLength(0);
    });
  });

  describe('401', () => {
    it('refuses a missing, unknown or malformed key, in both families', async () => {
      const body = { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] };
      const anonymous = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await expectChatError(anonymous, 401, 'authentication_error', 'missing_api_key');
      await expectChatError(
        await post('/chat/completions', body, { authorization: 'Bearer fed_wrong' }),
        401,
        'authentication_error',
        'invalid_api_key',
      );
      await expectChatError(
        await post('/chat/completions', body, { authorization: 'Bearer a.b.c' }),
        401,
        'authentication_error',
        'invalid_token',
      );
      const messages = await fetch(`${gateway.baseUrl}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'fed_wrong', ...messagesHeaders },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages: [] }),
      });
      await expectMessagesError(messages, 401, 'authentication_error');
    });

    it('refuses a revoked key at once on this instance', async () => {
      const { key, apiKey: revokedKey } = await gateway.keys.create({ name: 'short-lived' });
      const ask = () =>
        post(
          '/chat/completions',
          { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] },
          { authorization: `Bearer ${revokedKey}` },
        );
      expect((await ask()).status).toBe(200);
      await gateway.keys.revoke(key.id);
      await gateway.service.nest
        .get<{ publish: (t: string, p: unknown) => Promise<void> }>(Symbol.for('fed.bus.Signals'))
        .publish('config.changed', {
          version: 1,
          area: 'gateway.keys',
          id: key.id,
        });
      await expectChatError(await ask(), 401, 'authentication_error', 'invalid_api_key');
    });

    it('refuses an expired key', async () => {
      // The service refuses an expiry in the past: a key that expired is one whose day came and went.
      const { apiKey: expired, key } = await gateway.keys.create({
        name: 'expired',
        expiresAt: new Date(Date.now() + 60_000),
      });
      await gateway.service.nest
        .get(DataSource)
        .query(`UPDATE "gateway"."api_keys" SET "expires_at" = now() - interval '1 second' WHERE "id" = $1`, [key.id]);
      await expectChatError(
        await post('/chat/completions', { model: 'gpt-test', messages: [] }, { authorization: `Bearer ${expired}` }),
        401,
        'authentication_error',
        'invalid_api_key',
      );
    });
  });

  describe('403', () => {
    it('refuses a model the key may not call', async () => {
      const { apiKey: narrow } = await gateway.keys.create({ name: 'narrow', allowedModels: ['claude-test'] });
      await expectChatError(
        await post(
          '/chat/completions',
          { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] },
          { authorization: `Bearer ${narrow}` },
        ),
        403,
        'permission_error',
        'model_not_allowed',
      );
      const models = (await (
        await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${narrow}` } })
      ).json()) as {
        data: { id: string }[];
      };
      expect(models.data.map((m) => m.id)).toEqual(['claude-test']);
    });

    it('refuses a key used from a network it does not allow', async () => {
      const { apiKey: office } = await gateway.keys.create({ name: 'office', allowedNetworks: ['192.0.2.0/24'] });
      await expectChatError(
        await post('/chat/completions', { model: 'gpt-test', messages: [] }, { authorization: `Bearer ${office}` }),
        403,
        'permission_error',
        'network_not_allowed',
      );
      const { apiKey: local } = await gateway.keys.create({ name: 'local', allowedNetworks: ['127.0.0.0/8', '::1'] });
      const ok = await post(
        '/chat/completions',
        { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] },
        { authorization: `Bearer ${local}` },
      );
      expect(ok.status).toBe(200);
    });
  });

  describe('404', () => {
    it('answers an unknown path in the family of its prefix', async () => {
      await expectChatError(await post('/completions', {}), 404, 'not_found_error', 'not_found');
      await expectChatError(
        await fetch(`${gateway.baseUrl}/chat/completions`, { headers: { authorization: `Bearer ${apiKey}` } }),
        404,
        'not_found_error',
        'not_found',
      );
      await expectMessagesError(await post('/messages/batches', {}, messagesHeaders), 404, 'not_found_error');
    });

    it("passes a provider's 404 on as 404", async () => {
      upstream.enqueue({
        kind: 'status',
        status: 404,
        body: { error: { message: 'no such deployment', code: 'DeploymentNotFound' } },
      });
      const body = await expectChatError(
        await post('/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }),
        404,
        'not_found_error',
        'DeploymentNotFound',
      );
      expect(body.error.message).toContain('no such deployment');
    });
  });

  describe('413', () => {
    it('refuses a body over 32 MB, declared or streamed, in both families', async () => {
      const big = `{"model":"gpt-test","messages":[{"role":"user","content":"${'a'.repeat(32 * 1024 * 1024)}"}]}`;
      const res = await post('/chat/completions', big);
      await expectChatError(res, 413, 'invalid_request_error', 'request_too_large');
      await expectMessagesError(await post('/messages', big, messagesHeaders), 413, 'request_too_large');
      expect(upstream.requests).toHaveLength(0);
    });
  });

  describe('501', () => {
    it('answers /responses for an OpenAI-compatible server that did not opt in, without calling it', async () => {
      // `oai` is an openai-type provider on another host (a vLLM or Ollama), with no `responses` set.
      const before = upstream.requests.length;
      const res = await post('/responses', { model: 'gpt-test', input: 'x' });
      await expectChatError(res, 501, 'invalid_request_error', 'unsupported_endpoint');
      expect(upstream.requests).toHaveLength(before);
    });

    it('answers /responses for a provider without it, and /embeddings for a messages provider', async () => {
      await expectChatError(
        await post('/responses', { model: 'gpt-test', input: 'x' }),
        501,
        'invalid_request_error',
        'unsupported_endpoint',
      );
      await expectChatError(
        await post('/embeddings', { model: 'claude-test', input: 'x' }),
        501,
        'invalid_request_error',
        'unsupported_endpoint',
      );
    });
  });

  describe('502', () => {
    it('answers 502 when no provider can be reached', async () => {
      const res = await post('/chat/completions', { model: 'unreachable', messages: [{ role: 'user', content: 'x' }] });
      await expectChatError(res, 502, 'api_error', 'upstream_unreachable');
      expect(res.headers.get('x-should-retry')).toBe('true');
      await expectMessagesError(
        await post(
          '/messages',
          { model: 'unreachable', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
          messagesHeaders,
        ),
        502,
        'api_error',
      );
    });

    it('answers 502 when the provider sends nothing for its timeout, and aborts its call', async () => {
      upstream.enqueue({ kind: 'stall' });
      const started = Date.now();
      const res = await post('/chat/completions', { model: 'stalling', messages: [{ role: 'user', content: 'x' }] });
      await expectChatError(res, 502, 'api_error', 'upstream_unreachable');
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await upstream.waitForAbort(2000)).path).toBe('/v1/chat/completions');
    });

    it("answers 502 for a provider's server error and for its refusal of the gateway's own key", async () => {
      upstream.enqueue({ kind: 'status', status: 500 });
      await expectChatError(
        await post('/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }),
        502,
        'api_error',
        'upstream_error',
      );
      upstream.enqueue({ kind: 'status', status: 401 });
      await expectMessagesError(
        await post(
          '/messages',
          { model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
          messagesHeaders,
        ),
        502,
        'api_error',
      );
    });
  });

  describe('the official clients see the errors as their own', () => {
    it('openai raises its typed errors', async () => {
      const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
      await expect(
        openai.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
      ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
      const stranger = new OpenAI({ baseURL: gateway.baseUrl, apiKey: 'fed_nobody', maxRetries: 0 });
      await expect(stranger.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    });

    it('anthropic raises its typed errors', async () => {
      const anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });
      const failure = anthropic.messages.create({
        model: 'nope',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      });
      await expect(failure).rejects.toBeInstanceOf(Anthropic.BadRequestError);
      await expect(failure).rejects.toMatchObject({
        error: { type: 'error', error: { type: 'invalid_request_error' } },
      });
    });
  });
});
