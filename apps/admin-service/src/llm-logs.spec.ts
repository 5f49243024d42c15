import 'reflect-metadata';
import { LlmLogWriter, LlmLogsModule, LogRetentionJob } from '@fed/audit';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';
import { operatorToken } from './testing/operator-token';

interface LlmLogList {
  llmLogs: Record<string, unknown>[];
  total: number;
}

// Rows written by LlmLogWriter as agent-runtime writes them, read by admin-service with a token from the
// real realm (the chat stack's end-to-end check is apps/platform/src/llm-logs-e2e.spec.ts). The rows have no
// tenant: the operator's token (none either) reads them; tenant scoping is apps/admin-service/src/log-tenants.spec.ts.
describe('LLM log (GET /v1/admin/llm-logs): every field, nullable except the id', () => {
  let harness: LogsHarness;
  let token: string;
  let writer: LlmLogWriter;

  beforeAll(async () => {
    harness = await bootLogsHarness({ adminFeatures: [LlmLogsModule] });
    token = await operatorToken(harness.auth, ['logs:read']);
    writer = new LlmLogWriter(harness.dataSource, { flushMs: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await writer?.close();
    await harness?.close();
  });

  const list = async (query = '') => {
    const res = await harness.get(`/api/v1/admin/llm-logs${query}`, token);
    expect(res.status).toBe(200);
    return (await res.json()) as LlmLogList;
  };

  it('returns every field of the LLM log; toolsUsed null (not measured) is distinct from 0', async () => {
    const startedAt = new Date();
    writer.record({
      startedAt,
      durationMs: 5,
      service: 'agent-runtime',
      operation: 'agent_step',
      success: true,
      toolsUsed: 0,
    });
    writer.record({
      startedAt: new Date(startedAt.getTime() + 1),
      durationMs: 7,
      service: 'agent-runtime',
      operation: 'agent_step',
      success: false,
    });
    await writer.flush();
    const { llmLogs, total } = await list();
    expect(total).toBe(2);
    expect(Object.keys(llmLogs[0] as object).sort()).toEqual(
      [
        'llmLogId',
        'timestamp',
        'service',
        'operation',
        'durationMs',
        'conversationId',
        'intentType',
        'confidenceScore',
        'toolsUsed',
        'success',
        'agentType',
        'agentLevel',
        'taskComplexity',
        'currentMessage',
        'contextSummary',
        'suggestedApproach',
        'conversationGoal',
        'finalContent',
        'metadata',
        'createdAt',
        'tenantId',
      ].sort(),
    );
    expect(llmLogs.map((row) => row.toolsUsed)).toEqual([null, 0]);
    expect(llmLogs[1]).toMatchObject({ timestamp: startedAt.toISOString(), conversationId: null, metadata: null });
  });

  it('bounds contents to 4,000 characters and stores them without NUL or lone surrogates', async () => {
    writer.record({
      startedAt: new Date(Date.now() + 1000),
      durationMs: 1,
      service: 'agent-runtime',
      operation: 'agent_step',
      success: true,
      currentMessage: `a\u0000b\ud800${'x'.repeat(5000)}`,
    });
    await writer.flush();
    const [newest] = (await list('?limit=1')).llmLogs;
    const text = newest?.currentMessage as string;
    expect(text.startsWith('ab\ufffd')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(4000);
  });

  it('deletes rows older than LLM_LOG_RETENTION_DAYS (default 90) and keeps the total exact', async () => {
    writer.record({
      startedAt: new Date(Date.now() - 91 * 86_400_000),
      durationMs: 1,
      service: 'x',
      operation: 'y',
      success: true,
    });
    await writer.flush();
    expect((await list()).total).toBe(4);
    const deleted = await harness.admin.nest.get(LogRetentionJob).run();
    expect(deleted.llm).toBe(1);
    expect((await list()).total).toBe(3);
  });
});
