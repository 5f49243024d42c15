import { GuardrailAlertWriter, GuardrailAlertsModule } from '@fed/audit';
import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { runTurn } from './testing/chat-turn';
import { textAnswer } from './testing/model-answers';

interface GuardrailAlertList {
  guardrailAlerts: Record<string, unknown>[];
  total: number;
}

const RULES = {
  rules: [
    { name: 'cards', kind: 'pii', detectors: ['payment_card'], severity: 'high', stages: ['input', 'output'] },
    { name: 'codename', kind: 'blocked_terms', terms: ['Project Falcon'], severity: 'medium', action: 'block' },
    { name: 'mask-mail', kind: 'pii', detectors: ['email'], severity: 'low', action: 'redact' },
  ],
};

// chat-service, agent-runtime and llm-gateway in one process with a rules file (GUARDRAIL_RULES_FILE), and
// the admin API of the alerts (GuardrailAlertsModule, as admin-service imports it) on the same database.
describe('guardrails: the content filter of a turn, its alerts read back through GET /v1/admin/guardrail-alerts', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let logsToken: string;

  beforeAll(async () => {
    const rulesFile = path.join(mkdtempSync(path.join(tmpdir(), 'guardrails-')), 'rules.json');
    writeFileSync(rulesFile, JSON.stringify(RULES));
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [GuardrailAlertsModule],
      env: { GUARDRAIL_RULES_FILE: rulesFile },
    });
    logsToken = await stack.token('logs:read');
  });

  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  async function alertsOf(conversationId: string): Promise<Record<string, unknown>[]> {
    await stack.service.nest.get(GuardrailAlertWriter).flush();
    const res = await fetch(`${stack.api}/v1/admin/guardrail-alerts?conversationId=${conversationId}`, {
      headers: { authorization: `Bearer ${logsToken}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as GuardrailAlertList).guardrailAlerts;
  }

  it('a message with a payment card number is answered and records an alert with the number masked', async () => {
    upstream.reset();
    upstream.enqueue(textAnswer(['Noted.']));
    const { conversationId, chunks } = await runTurn(stack.api, await stack.userToken(), {
      messages: [{ role: 'user', content: 'Please charge my card 4111 1111 1111 1111 for the order.' }],
      agentMode: false,
    });
    expect(chunks.at(-1)?.choices[0]?.finishReason).toBe('stop');
    const alerts = await alertsOf(conversationId);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      conversationId,
      service: 'agent-runtime',
      stage: 'input',
      rule: 'cards',
      ruleType: 'pii',
      severity: 'high',
      action: 'alert',
      matchCount: 1,
      excerpt: 'Please charge my card [payment_card] for the order.',
      messageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: expect.any(String),
    });
  });

  it('a blocked term ends the turn with the error content_blocked and no model call', async () => {
    upstream.reset();
    const { conversationId, chunks } = await runTurn(stack.api, await stack.userToken(), {
      messages: [{ role: 'user', content: 'What is the budget of ＰＲＯＪＥＣＴ falcon?' }],
      agentMode: true,
    });
    const last = chunks.at(-1) as { error?: { code: string; message: string }; choices: { finishReason: string }[] };
    expect(last.error).toEqual({
      code: 'content_blocked',
      message: 'The message was blocked by the content filter and was not sent to the model.',
    });
    expect(last.choices[0]?.finishReason).toBe('error');
    expect(upstream.requests).toHaveLength(0);
    const alerts = await alertsOf(conversationId);
    expect(alerts).toEqual([
      expect.objectContaining({
        rule: 'codename',
        action: 'block',
        excerpt: 'What is the budget of ＰＲＯＪＥＣＴ falcon?',
      }),
    ]);
  });

  it('a redact rule masks the match before the model sees it', async () => {
    upstream.reset();
    upstream.enqueue(textAnswer(['Sent.']));
    const { conversationId } = await runTurn(stack.api, await stack.userToken(), {
      messages: [{ role: 'user', content: 'Write to jane.doe@example.com please' }],
      agentMode: false,
    });
    const [request] = await upstream.waitForRequests(1);
    expect(request?.rawBody.toString()).toContain('Write to [REDACTED] please');
    expect(request?.rawBody.toString()).not.toContain('jane.doe@example.com');
    expect(await alertsOf(conversationId)).toEqual([
      expect.objectContaining({ rule: 'mask-mail', action: 'redact', excerpt: 'Write to [email] please' }),
    ]);
  });

  it("checks the answer too (stage output), and keeps no excerpt of a private-mode turn's", async () => {
    upstream.reset();
    upstream.enqueue(textAnswer(['Your card on file is 5555 5555 5555 4444.']));
    const { conversationId } = await runTurn(stack.api, await stack.userToken(), {
      messages: [{ role: 'user', content: 'Which card do you have?' }],
      agentMode: false,
      privateMode: true,
    });
    const alerts = await alertsOf(conversationId);
    expect(alerts).toEqual([expect.objectContaining({ stage: 'output', rule: 'cards', excerpt: null })]);
    expect(alerts[0]?.messageId).not.toBeNull();
  });
});
