import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import OpenAI from 'openai';
import { bootGateway } from './testing/boot-gateway';

describe('model gateway: graceful shutdown', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('writes every buffered log row before the process stops', async () => {
    const gateway = await bootGateway({ databaseUrl: database.url, env: { LLM_GATEWAY_LOG_FLUSH_MS: '60000' } });
    const openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey: await gateway.createKey(), maxRetries: 0 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        openai.chat.completions.create({
          model: 'demo',
          messages: [{ role: 'user', content: `question ${i}` }],
          stream: i % 2 === 0,
        }),
      ).map(async (call) => {
        const result = await call;
        if (Symbol.asyncIterator in result) for await (const _chunk of result);
      }),
    );
    await gateway.service.shutdown('test');
    const [{ n }] = (await database.dataSource.query('SELECT count(*) AS n FROM "audit"."llm_gateway_logs"')) as {
      n: string;
    }[];
    expect(Number(n)).toBe(20);
  });
});
