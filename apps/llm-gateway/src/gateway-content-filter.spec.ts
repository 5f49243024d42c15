import Anthropic from '@anthropic-ai/sdk';
import { type GuardrailAlertWriter } from '@fed/audit';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { type RunningGateway, bootGateway } from './testing/boot-gateway';

const RULES = {
  rules: [
    {
      name: 'codename',
      kind: 'blocked_terms',
      terms: ['Project Falcon'],
      severity: 'high',
      action: 'block',
      stages: ['gateway'],
    },
    { name: 'cards', kind: 'pii', detectors: ['payment_card'], severity: 'medium', stages: ['gateway'] },
  ],
};

/** Stage `gateway` of the content filter (GUARDRAIL_RULES_FILE): spec document 3, "400 blocked by content filter". */
describe('model gateway: the content filter', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let apiKey: string;

  beforeAll(async () => {
    const rulesFile = path.join(mkdtempSync(path.join(tmpdir(), 'guardrails-')), 'rules.json');
    writeFileSync(rulesFile, JSON.stringify(RULES));
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    gateway = await bootGateway({
      databaseUrl: database.url,
      env: { GUARDRAIL_RULES_FILE: rulesFile },
      routing: {
        providers: [
          { name: 'oai', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'k' },
          { name: 'ant', type: 'anthropic', baseUrl: upstream.url, apiKey: 'k' },
        ],
        models: [
          { name: 'gpt-test', deployments: [{ provider: 'oai', model: 'gpt-4o' }] },
          { name: 'claude-test', deployments: [{ provider: 'ant', model: 'claude-haiku-4-5' }] },
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

  async function alerts(): Promise<Record<string, unknown>[]> {
    // The gateway's own writer (GatewayModule's provider of its stage-gateway rules).
    const guardrails = gateway.service.nest.get<symbol, { alerts: GuardrailAlertWriter }>(
      Symbol.for('fed.gateway.Guardrails'),
      { strict: false },
    );
    await guardrails.alerts.flush();
    return (await gateway.service.nest
      .get(DataSource)
      .query('SELECT * FROM "audit"."guardrail_alerts" ORDER BY "created_at", "id"')) as Record<string, unknown>[];
  }

  it('refuses a chat-completions request with a blocked term: 400 in the family format, no provider call', async () => {
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    const refused = openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Summarise the plan of ｐｒｏｊｅｃｔ FALCON' }],
    });
    await expect(refused).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: {
        type: 'invalid_request_error',
        code: 'content_filtered',
        message: 'The request was blocked by the content filter.',
      },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a messages request with a blocked term in the messages format', async () => {
    const anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });
    const refused = anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'About Project Falcon.' }] }],
    });
    await expect(refused).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: { type: 'error', error: { type: 'invalid_request_error' } },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('lets an alert-only match through and records the alerts with the virtual key', async () => {
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Card 4111 1111 1111 1111, please.' }],
    });
    expect(answer.choices).toHaveLength(1);
    expect(upstream.requests).toHaveLength(1);
    const rows = await alerts();
    expect(rows.map((row) => [row.stage, row.rule, row.action])).toEqual([
      ['gateway', 'codename', 'block'],
      ['gateway', 'codename', 'block'],
      ['gateway', 'cards', 'alert'],
    ]);
    const [key] = await gateway.keys.list();
    expect(rows[2]).toMatchObject({
      service: 'llm-gateway',
      caller: `api-key:${key?.id}`,
      excerpt: 'Card [payment_card], please.',
      conversation_id: null,
      tenant_id: null,
    });
  });

  it('records alerts for what a call adds, not again for the history it re-sends; a block still looks at all of it', async () => {
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    const before = (await alerts()).length;
    // An agent's second step: the card was in the first message, already checked (and alerted) then.
    await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'Card 4111 1111 1111 1111, please.' },
        { role: 'assistant', content: 'Which order?' },
        { role: 'user', content: 'The last one.' },
      ],
    });
    expect((await alerts()).length).toBe(before);
    // A blocked term in the history refuses the call, and the refusal is recorded.
    const refused = openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'About Project Falcon.' },
        { role: 'assistant', content: 'Yes?' },
        { role: 'user', content: 'Go on.' },
      ],
    });
    await expect(refused).rejects.toMatchObject({ status: 400, error: { code: 'content_filtered' } });
    const rows = await alerts();
    expect(rows.slice(before).map((row) => [row.rule, row.action])).toEqual([['codename', 'block']]);
  });

  it("keeps no excerpt of a call marked private (the agent's private-mode turns)", async () => {
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    await openai.chat.completions.create(
      { model: 'gpt-test', messages: [{ role: 'user', content: 'Card 4111 1111 1111 1111, privately.' }] },
      { headers: { 'x-federation-private': 'true' } },
    );
    const newest = (await alerts()).at(-1);
    expect(newest).toMatchObject({ rule: 'cards', excerpt: null });
  });

  it('refuses a request longer than the filter reads, rather than pass unread text', async () => {
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    const refused = openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: `${'a'.repeat(1_000_001)} Project Falcon` }],
    });
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: { code: 'content_filtered', message: expect.stringContaining('longer than the content filter reads') },
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
