import Anthropic from '@anthropic-ai/sdk';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { MetricsScrape, ScriptedUpstream } from '@fed/testing';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { type RunningGateway, bootGateway, findLogRow } from './testing/boot-gateway';

/** Retries, fallback, client aborts, limits and quotas, CORS, and the endpoints besides chat. */
describe('model gateway: reliability, limits, CORS and the other endpoints', () => {
  let database: TestDatabase;
  let primary: ScriptedUpstream;
  let secondary: ScriptedUpstream;
  let gateway: RunningGateway;
  let apiKey: string;
  let openai: OpenAI;

  beforeAll(async () => {
    database = await createTestDatabase();
    [primary, secondary] = await Promise.all([ScriptedUpstream.start(), ScriptedUpstream.start()]);
    gateway = await bootGateway({
      databaseUrl: database.url,
      routing: {
        providers: [
          { name: 'primary', type: 'openai', baseUrl: `${primary.url}/v1`, apiKey: 'k1', responses: true },
          { name: 'secondary', type: 'openai', baseUrl: `${secondary.url}/v1`, apiKey: 'k2' },
          { name: 'ant', type: 'anthropic', baseUrl: primary.url, apiKey: 'k3' },
          { name: 'slow', type: 'openai', baseUrl: `${secondary.url}/v1`, apiKey: 'k4', timeoutSeconds: 1 },
        ],
        models: [
          {
            name: 'gpt-test',
            deployments: [
              { provider: 'primary', model: 'gpt-4o' },
              { provider: 'secondary', model: 'gpt-4o', deployment: 'backup' },
            ],
          },
          { name: 'claude-test', deployments: [{ provider: 'ant', model: 'claude-sonnet-4-5' }] },
          { name: 'embed', deployments: [{ provider: 'primary', model: 'text-embedding-3-small' }] },
          { name: 'slow-test', aliases: ['slow-alias'], deployments: [{ provider: 'slow', model: 'gpt-4o' }] },
        ],
        retries: { attempts: 2, initialBackoffMs: 10, maxBackoffMs: 50 },
      },
    });
    apiKey = await gateway.createKey();
    openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.service.shutdown('test');
    await Promise.all([primary?.close(), secondary?.close()]);
    await database?.drop();
  });

  beforeEach(() => {
    primary.reset();
    secondary.reset();
  });

  const ask = (client = openai) =>
    client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'retry me' }] });

  describe('retries and fallback', () => {
    it('retries a 429 and a 503 of the provider before answering', async () => {
      primary.enqueue(
        { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
        { kind: 'status', status: 503 },
      );
      expect((await ask()).choices[0]?.message.content).toBe('Echo: retry me');
      expect(primary.requests).toHaveLength(2);
      expect(secondary.requests).toHaveLength(1);
    });

    it('retries a connection dropped before the first byte', async () => {
      primary.enqueue({ kind: 'hangUp' });
      expect((await ask()).choices[0]?.message.content).toBe('Echo: retry me');
      expect(primary.requests).toHaveLength(2);
    });

    it('falls back to the next deployment and logs the one that answered', async () => {
      primary.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
      expect((await ask()).choices[0]?.message.content).toBe('Echo: retry me');
      expect(secondary.requests).toHaveLength(1);
      expect(secondary.requests[0]?.headers.authorization).toBe('Bearer k2');
      const row = await findLogRow(gateway, (r) => r.provider === 'secondary');
      expect(row).toMatchObject({ provider: 'secondary', deployment: 'backup', success: true });
      expect((row?.metadata as { attempts: number }).attempts).toBe(3);
    });

    it('does not retry a client error', async () => {
      primary.enqueue({ kind: 'status', status: 400 });
      await expect(ask()).rejects.toBeInstanceOf(OpenAI.BadRequestError);
      expect(primary.requests).toHaveLength(1);
      expect(secondary.requests).toHaveLength(0);
    });

    it('answers 429 with retry headers when every deployment is rate limited', async () => {
      const limited = { kind: 'status' as const, status: 429, headers: { 'retry-after': '0' } };
      primary.enqueue(limited, limited);
      secondary.enqueue(limited, limited);
      const res = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('x-should-retry')).toBe('true');
      expect(res.headers.get('retry-after')).toBe('0');
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
    });
  });

  describe('client abort', () => {
    it('aborts the provider call when the client goes away, and bills the partial usage', async () => {
      primary.enqueue({
        kind: 'sse',
        events: [
          {
            data: {
              id: 'c1',
              object: 'chat.completion.chunk',
              created: 0,
              model: 'gpt-4o',
              choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
            },
          },
          {
            data: {
              id: 'c1',
              object: 'chat.completion.chunk',
              created: 0,
              model: 'gpt-4o',
              choices: [{ index: 0, delta: { content: 'The first part of a long answer' }, finish_reason: null }],
            },
          },
          { delayMs: 30_000 },
          { data: '[DONE]' },
        ],
      });
      const controller = new AbortController();
      const stream = await openai.chat.completions.create(
        { model: 'gpt-test', messages: [{ role: 'user', content: 'a long question' }], stream: true },
        { signal: controller.signal },
      );
      let text = '';
      try {
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          if (text.length > 0) controller.abort();
        }
      } catch {
        // the client's own abort
      }
      expect(text).toBe('The first part of a long answer');
      const aborted = await primary.waitForAbort(5000);
      expect(aborted.path).toBe('/v1/chat/completions');
      const row = await findLogRow(gateway, (r) => r.error_type === 'client_aborted');
      expect(row).toMatchObject({
        success: false,
        usage_status: 'partial',
        error_type: 'client_aborted',
        stream: true,
      });
      expect(Number(row?.input_tokens)).toBeGreaterThan(0);
      expect(Number(row?.output_tokens)).toBeGreaterThan(0);
    });
  });

  describe('metrics', () => {
    const chunk = (content: string) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'gpt-4o',
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });

    it('shows tokens and cost by model name and key id, and every attempt at a provider by status class and error reason', async () => {
      const { key, apiKey: metered } = await gateway.keys.create({ name: 'metered' });
      const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: metered, maxRetries: 0 });
      const before = await MetricsScrape.of(gateway.service.url);

      // A 503, a connection dropped before the first byte, then the fallback answers.
      primary.enqueue({ kind: 'status', status: 503 }, { kind: 'hangUp' });
      const answered = await client.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'count me' }],
      });
      primary.enqueue({ kind: 'status', status: 400 });
      await expect(
        client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }),
      ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
      // A provider that sends no status within its timeout (1 s), then answers the retry; called by an alias.
      secondary.enqueue({ kind: 'stall' });
      const viaAlias = await client.chat.completions.create({
        model: 'slow-alias',
        messages: [{ role: 'user', content: 'slowly' }],
      });
      // A stream the provider breaks off after its first event.
      primary.enqueue({ kind: 'sse', events: [{ data: chunk('Half an') }, { hangUp: true }] });
      const broken = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${metered}` },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }], stream: true }),
      });
      expect(await broken.text()).toContain("the provider's stream broke");

      const after = await MetricsScrape.of(gateway.service.url);
      const added = (name: string, labels: Record<string, string>) =>
        after.sum(name, labels) - before.sum(name, labels);
      const attempts = (provider: string, status_class: string) =>
        added('gateway_upstream_duration_seconds_count', { provider, status_class });
      const errors = (provider: string, reason: string) => added('gateway_upstream_errors_total', { provider, reason });
      expect(attempts('primary', '5xx')).toBe(1);
      expect(attempts('primary', 'error')).toBe(1);
      expect(attempts('primary', '4xx')).toBe(1);
      expect(attempts('primary', '2xx')).toBe(1);
      expect(attempts('secondary', '2xx')).toBe(1);
      expect(attempts('slow', 'error')).toBe(1);
      expect(attempts('slow', '2xx')).toBe(1);
      expect(errors('primary', 'status_5xx')).toBe(1);
      expect(errors('primary', 'status_4xx')).toBe(1);
      // The dropped connection and the broken stream.
      expect(errors('primary', 'connection')).toBe(2);
      expect(errors('slow', 'timeout')).toBe(1);
      expect(errors('secondary', 'connection') + errors('secondary', 'timeout')).toBe(0);

      const usage = answered.usage as OpenAI.CompletionUsage;
      const tokens = (model: string, direction: string) =>
        added('gateway_tokens_total', { model, key: key.id, direction });
      expect(tokens('gpt-test', 'input')).toBeGreaterThanOrEqual(usage.prompt_tokens);
      expect(tokens('gpt-test', 'output')).toBeGreaterThanOrEqual(usage.completion_tokens);
      expect(tokens('slow-alias', 'input')).toBe(viaAlias.usage?.prompt_tokens);
      expect(tokens('slow-alias', 'output')).toBe(viaAlias.usage?.completion_tokens);
      expect(added('gateway_tokens_total', { model: 'slow-test' })).toBe(0);
      // gpt-4o's list price: $2.50 and $10 per million input and output tokens.
      const viaAliasUsage = viaAlias.usage as OpenAI.CompletionUsage;
      expect(added('gateway_cost_usd_total', { model: 'slow-alias', key: key.id })).toBeCloseTo(
        (viaAliasUsage.prompt_tokens * 2.5 + viaAliasUsage.completion_tokens * 10) / 1e6,
        10,
      );
      for (const sample of after.samples) {
        for (const value of Object.values(sample.labels)) expect(value).not.toContain(metered.slice(4));
      }
    });
  });

  describe('limits and quotas', () => {
    const call = (key: string) =>
      fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }),
      });

    it('refuses requests over the per-minute limit with a retryable 429', async () => {
      const key = await gateway.createKey({ rpmLimit: 2 });
      expect((await call(key)).status).toBe(200);
      expect((await call(key)).status).toBe(200);
      const refused = await call(key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-should-retry')).toBe('true');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    });

    it('refuses requests once the tokens of the minute are used', async () => {
      const key = await gateway.createKey({ tpmLimit: 2 });
      expect((await call(key)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await call(key);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('tokens_rate_limit_exceeded');
    });

    it('refuses with x-should-retry: false once the daily budget is spent, on every endpoint', async () => {
      const key = await gateway.createKey({ dailyBudgetUsd: 0.0001 });
      const expensive = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x'.repeat(4000) }] }),
      });
      expect(expensive.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await call(key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-should-retry')).toBe('false');
      expect(((await refused.json()) as { error: { type: string; code: string } }).error).toMatchObject({
        type: 'insufficient_quota',
        code: 'daily_budget_exceeded',
      });
      const anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey: key, maxRetries: 0 });
      const messages = anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      });
      await expect(messages).rejects.toBeInstanceOf(Anthropic.RateLimitError);
      await expect(messages).rejects.toMatchObject({ headers: expect.anything() });
      const embeddings = await fetch(`${gateway.baseUrl}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'embed', input: 'x' }),
      });
      expect(embeddings.status).toBe(429);
    });
  });

  describe('CORS', () => {
    const browser = (headers: Record<string, string>, method = 'POST') =>
      fetch(`${gateway.baseUrl}/chat/completions`, {
        method,
        headers: { origin: 'https://app.example.com', ...headers },
        ...(method === 'POST'
          ? { body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }] }) }
          : {}),
      });

    it('blocks a browser request that did not opt in', async () => {
      const res = await browser({ 'content-type': 'application/json', authorization: `Bearer ${apiKey}` });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('browser_access_not_allowed');
    });

    it('allows a browser request with either opt-in header, answering Access-Control-Allow-Origin: *', async () => {
      for (const optIn of ['anthropic-dangerous-direct-browser-access', 'x-federation-allow-browser-access']) {
        const res = await browser({
          'content-type': 'application/json',
          authorization: `Bearer ${apiKey}`,
          [optIn]: 'true',
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
      }
    });

    it('answers a preflight that announces an opt-in header, and refuses one that does not', async () => {
      const ok = await browser(
        {
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, x-federation-allow-browser-access',
        },
        'OPTIONS',
      );
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('*');
      expect(ok.headers.get('access-control-allow-headers')).toContain('x-federation-allow-browser-access');
      const refused = await browser(
        { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
        'OPTIONS',
      );
      expect(refused.status).toBe(403);
    });

    it('leaves server-to-server calls (no Origin) alone', async () => {
      expect((await ask()).choices[0]?.message.content).toBe('Echo: retry me');
    });
  });

  describe('embeddings, models, count_tokens, responses', () => {
    it('answers embeddings through the official client', async () => {
      const result = await openai.embeddings.create({ model: 'embed', input: ['one', 'two'] });
      expect(result.data).toHaveLength(2);
      expect(result.data[0]?.embedding.length).toBeGreaterThan(0);
      expect(result.usage.prompt_tokens).toBeGreaterThan(0);
      expect((primary.requests[0]?.json as { model: string }).model).toBe('text-embedding-3-small');
    });

    it('lists the models and aliases, in both families', async () => {
      const ids: string[] = [];
      for await (const model of openai.models.list()) ids.push(model.id);
      expect(ids).toEqual(expect.arrayContaining(['gpt-test', 'claude-test', 'embed', 'demo']));
      const anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });
      const page = await anthropic.models.list();
      expect(page.data.map((m) => m.id)).toEqual(expect.arrayContaining(['gpt-test', 'claude-test']));
    });

    it('retrieves one model (models.retrieve), alias included, in both families', async () => {
      expect(await openai.models.retrieve('gpt-test')).toEqual({
        id: 'gpt-test',
        object: 'model',
        created: 0,
        owned_by: 'primary',
      });
      expect((await openai.models.retrieve('slow-alias')).id).toBe('slow-alias');
      const anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });
      expect(await anthropic.models.retrieve('claude-test')).toEqual({
        type: 'model',
        id: 'claude-test',
        display_name: 'claude-test',
        created_at: '1970-01-01T00:00:00Z',
      });
    });

    it('answers 404 model_not_found for an unknown model, and for one the key may not use (another tenant sees it)', async () => {
      const tenantA = '0b6c3a52-54a3-4d5e-9a51-7f1c2b0e8d11';
      const tenantB = '5f2e9d40-1c7b-4b6a-8e3f-2a9c0d7e6b22';
      // A key's tenant must exist: the service refuses one that does not.
      await gateway.service.nest.get(DataSource).query(
        `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
         VALUES ($1, 'tenant-a', 'enterprise', 'https://a.example.com', true, now()),
                ($2, 'tenant-b', 'enterprise', 'https://b.example.com', true, now())
         ON CONFLICT ("id") DO NOTHING`,
        [tenantA, tenantB],
      );
      const narrow = new OpenAI({
        baseURL: gateway.baseUrl,
        apiKey: await gateway.createKey({ tenantId: tenantA, allowedModels: ['claude-test'] }),
        maxRetries: 0,
      });
      const other = new OpenAI({
        baseURL: gateway.baseUrl,
        apiKey: await gateway.createKey({ tenantId: tenantB }),
        maxRetries: 0,
      });
      expect((await other.models.retrieve('gpt-test')).id).toBe('gpt-test');
      expect((await narrow.models.retrieve('claude-test')).id).toBe('claude-test');
      for (const [client, model] of [
        [narrow, 'gpt-test'],
        [openai, 'no-such-model'],
        [openai, 'primary/gpt-4o'],
        [openai, 'gpt-4o'],
      ] as const) {
        const failure = await client.models.retrieve(model).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
        expect(failure).toMatchObject({
          status: 404,
          code: 'model_not_found',
          type: 'invalid_request_error',
          message: expect.stringContaining(JSON.stringify(model)),
        });
      }
      const anthropicNarrow = new Anthropic({
        baseURL: gateway.baseUrl.replace(/\/v1$/, ''),
        apiKey: await gateway.createKey({ allowedModels: ['claude-test'] }),
        maxRetries: 0,
      });
      const refused = await anthropicNarrow.models.retrieve('gpt-test').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Anthropic.NotFoundError);
      expect((refused as InstanceType<typeof Anthropic.NotFoundError>).error).toEqual({
        type: 'error',
        error: { type: 'not_found_error', message: expect.stringContaining('"gpt-test"') },
      });
    });

    it('refuses one model without a key, in the family of the caller, and 404s an empty or undecodable name', async () => {
      const openAiStyle = await fetch(`${gateway.baseUrl}/models/gpt-test`);
      expect(openAiStyle.status).toBe(401);
      expect(((await openAiStyle.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
      const anthropicStyle = await fetch(`${gateway.baseUrl}/models/gpt-test`, {
        headers: { 'anthropic-version': '2023-06-01' },
      });
      expect(anthropicStyle.status).toBe(401);
      expect(await anthropicStyle.json()).toEqual({
        type: 'error',
        error: { type: 'authentication_error', message: 'an API key in x-api-key is required' },
      });
      for (const path of ['/models/', '/models/%E0%A4%A', '/models/%ZZ?x=1']) {
        const response = await fetch(`${gateway.baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(response.status).toBe(404);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
      const post = await fetch(`${gateway.baseUrl}/models/gpt-test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(post.status).toBe(404);
    });

    it('counts tokens at a messages provider, and locally for a chat-completions one', async () => {
      const anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });
      const remote = await anthropic.messages.countTokens({
        model: 'claude-test',
        messages: [{ role: 'user', content: 'count these words' }],
      });
      expect(remote.input_tokens).toBeGreaterThan(0);
      expect(primary.requests[0]?.path).toBe('/v1/messages/count_tokens');
      const local = await anthropic.messages.countTokens({
        model: 'gpt-test',
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'Hello, world! How many tokens is this?' }],
      });
      expect(local.input_tokens).toBeGreaterThan(10);
      expect(local.input_tokens).toBeLessThan(40);
      expect(primary.requests).toHaveLength(1);
    });

    it('passes /responses through to a provider that has it, streamed and not', async () => {
      const response = await openai.responses.create({ model: 'gpt-test', input: 'respond' });
      expect(response.output_text).toBe('Echo: respond');
      expect(primary.requests[0]?.path).toBe('/v1/responses');
      const stream = await openai.responses.create({ model: 'gpt-test', input: 'stream', stream: true });
      let text = '';
      for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
      expect(text).toBe('Echo: stream');
      const streamed = await findLogRow(gateway, (row) => row.api_flavor === 'responses' && row.stream === true);
      expect(streamed).toMatchObject({ usage_status: 'reported', success: true });
    });
  });
});
