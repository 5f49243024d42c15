import Anthropic from '@anthropic-ai/sdk';
import { TestTokenIssuer } from '@fed/auth/testing';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import OpenAI from 'openai';
import { type RunningGateway, bootGateway, gatewayLogRows } from './testing/boot-gateway';

// The Marketplace edition's gateway (docs/marketplace.md): the agent's path to its models, answering virtual
// keys only; to anything else it is a path that does not exist.
describe('model gateway in the Marketplace edition: virtual keys only', () => {
  let database: TestDatabase;
  let gateway: RunningGateway;
  let origin: string;
  let apiKey: string;
  const unknownPath = async (method: string, path: string) =>
    (await fetch(`${origin}/api/v1/no-such-thing`, { method }))
      .text()
      .then((body) => body.replace('/api/v1/no-such-thing', path));
  const logRows = async () =>
    (
      (await database.dataSource.query('SELECT count(*)::int AS n FROM "audit"."llm_gateway_logs"')) as { n: number }[]
    )[0]?.n ?? 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await bootGateway({ databaseUrl: database.url, env: { EDITION: 'marketplace' } });
    origin = new URL(gateway.baseUrl).origin;
    apiKey = await gateway.createKey({ name: 'agent-runtime' });
  });

  afterAll(async () => {
    await gateway?.service.shutdown('test');
    await database?.drop();
  });

  it("serves the agent's virtual key, in both API families", async () => {
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    const answer = await openai.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]?.message.content).toMatch(/demo model/);
    const anthropic = new Anthropic({ baseURL: origin + '/llm', apiKey, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'demo',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content[0]?.type).toBe('text');
  });

  it('answers everything else as an unknown path: no key, a wrong, revoked or foreign key, a token, a preflight', async () => {
    const revoked = await gateway.createKey({ name: 'revoked' });
    await gateway.keys.revoke('revoked');
    const issuer = await TestTokenIssuer.create();
    const jwt = await issuer.mint({ scope: 'openid' });
    const requests: [string, Record<string, string>, string][] = [
      ['POST', {}, '/llm/v1/chat/completions'],
      ['POST', { authorization: `Bearer ${apiKey}x` }, '/llm/v1/chat/completions'],
      ['POST', { authorization: `Bearer ${revoked}` }, '/llm/v1/chat/completions'],
      ['POST', { authorization: 'Bearer sk-something-else' }, '/llm/v1/chat/completions'],
      ['POST', { authorization: `Bearer ${jwt}` }, '/llm/v1/chat/completions'],
      ['POST', { 'x-api-key': 'nope', 'anthropic-version': '2023-06-01' }, '/llm/v1/messages'],
      ['GET', {}, '/llm/v1/models'],
      ['OPTIONS', { origin: 'https://evil.example', 'access-control-request-method': 'POST' }, '/llm/v1/models'],
    ];
    // The served calls above are logged off the request path: count from after they have landed.
    const before = (await gatewayLogRows(gateway, 2)).length;
    for (const [method, headers, path] of requests) {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(method === 'POST' ? { body: '{"model":"demo","messages":[{"role":"user","content":"hi"}]}' } : {}),
      });
      expect({ method, headers, status: res.status, body: await res.text() }).toEqual({
        method,
        headers,
        status: 404,
        body: await unknownPath(method, path),
      });
    }
    // Nothing of these reaches the gateway's log (no admin API reads it in this edition).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await logRows()).toBe(before);
  });
});
