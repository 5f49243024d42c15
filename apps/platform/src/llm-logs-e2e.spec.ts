import { LlmLogWriter, LlmLogsModule } from '@fed/audit';
import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { decodeJwt } from 'jose';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { runTurn } from './testing/chat-turn';
import { textAnswer, toolCall } from './testing/model-answers';

interface LlmLogList {
  llmLogs: Record<string, unknown>[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
  error?: { code: string };
}

// chat-service, agent-runtime and llm-gateway in one process, with the admin API of the LLM log
// (LlmLogsModule, as admin-service imports it) beside them on the same database.
describe('LLM log: one row per model call of the agent runtime, read back through GET /v1/admin/llm-logs', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let logsToken: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { features: [LlmLogsModule] });
    logsToken = await stack.token('logs:read');
  });

  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const list = async (query = '', token = logsToken) => {
    const res = await fetch(`${stack.api}/v1/admin/llm-logs${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as LlmLogList };
  };

  async function rowsOf(conversationId: string): Promise<Record<string, unknown>[]> {
    await stack.service.nest.get(LlmLogWriter).flush();
    const { body } = await list('?limit=100');
    return body.llmLogs.filter((row) => row.conversationId === conversationId);
  }

  it('a turn with one tool call then an answer gives two rows: toolsUsed 1 then 0, newest first', async () => {
    upstream.enqueue(toolCall('call-1', 'no_such_tool', {}));
    upstream.enqueue(textAnswer(['The answer']));
    const token = await stack.userToken();
    const { conversationId } = await runTurn(stack.api, token, {
      messages: [{ role: 'user', content: 'What is the answer?' }],
      agentMode: true,
      agentLevel: 'default',
    });
    const rows = await rowsOf(conversationId);
    expect(rows).toHaveLength(2);
    // The turn's tenant (the user's), which the logs:read token of the same tenant reads.
    const tenantId = (decodeJwt(token).tenant as { id: string }).id;
    expect(rows.map((row) => row.tenantId)).toEqual([tenantId, tenantId]);
    const [answer, step] = rows;
    expect(Date.parse(answer?.timestamp as string)).toBeGreaterThanOrEqual(Date.parse(step?.timestamp as string));
    for (const row of rows) {
      expect(row).toMatchObject({
        llmLogId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        service: 'agent-runtime',
        operation: 'agent_step',
        success: true,
        agentType: 'agent',
        agentLevel: 'default',
        currentMessage: 'What is the answer?',
        intentType: null,
        confidenceScore: null,
        taskComplexity: null,
        contextSummary: null,
        suggestedApproach: null,
        conversationGoal: null,
        durationMs: expect.any(Number),
        createdAt: expect.any(String),
      });
    }
    expect(step).toMatchObject({ toolsUsed: 1, finalContent: '', metadata: expect.objectContaining({ step: 1 }) });
    expect(answer).toMatchObject({
      toolsUsed: 0,
      finalContent: 'The answer',
      metadata: expect.objectContaining({ step: 2 }),
    });
    expect(Object.keys(answer?.metadata as object).sort()).toEqual(['messageId', 'model', 'runId', 'step']);
  });

  it("a private-mode turn's rows have no contents (currentMessage and finalContent null)", async () => {
    upstream.enqueue(textAnswer(['Secret answer']));
    const token = await stack.userToken();
    const { conversationId } = await runTurn(stack.api, token, {
      messages: [{ role: 'user', content: 'A private question' }],
      agentMode: false,
      privateMode: true,
    });
    const rows = await rowsOf(conversationId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      operation: 'direct_answer',
      agentType: 'direct',
      toolsUsed: 0,
      success: true,
      currentMessage: null,
      finalContent: null,
    });
  });

  it('a failed model call is a row with success false and metadata.error', async () => {
    upstream.enqueue({ kind: 'status', status: 400, path: '/v1/chat/completions' });
    const token = await stack.userToken();
    const res = await fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'federation-agent',
        stream: true,
        agentMode: false,
        messages: [{ role: 'user', content: 'fail' }],
      }),
    });
    const conversationId = res.headers.get('x-conversation-id') as string;
    await res.text();
    const rows = await rowsOf(conversationId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ success: false, toolsUsed: null, finalContent: null });
    expect((rows[0]?.metadata as { error?: unknown }).error).toEqual(expect.any(String));
  });

  it('lists with the numbered envelope and filters by from and to (UTC days)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const all = await list(`?from=${today}&to=${today}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: all.body.llmLogs.length, limit: 25, page: 1, hasMore: false });
    expect(all.body.total).toBeGreaterThanOrEqual(3);
    expect((await list('?limit=1&page=2')).body).toMatchObject({ limit: 1, page: 2, hasMore: true });
    expect((await list('?from=2020-01-01&to=2020-01-01')).body).toMatchObject({ total: 0, llmLogs: [] });
  });

  it.each(['from=2026-13-01', 'to=2026-02-30', 'from=2026-03-02&to=2026-03-01', 'limit=0', 'limit=101', 'page=0'])(
    'refuses bad query values with 400 (%s)',
    async (query) => {
      const { status, body } = await list(`?${query}`);
      expect(status).toBe(400);
      expect(body.error?.code).toBe('invalid_parameter');
    },
  );

  it('refuses a token without logs:read with 403', async () => {
    expect((await list('', await stack.userToken())).status).toBe(403);
  });
});
