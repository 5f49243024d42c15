import { useTestDatabase } from '@fed/persistence/testing';
import { TurnLedger } from '../ledger/turn-ledger';
import { TurnsRepository } from '../turns/turns.repository';

const OWNER = { userId: 'user-1', tenantId: 'tenant-1' };
const OPTIONS = {
  agentLevel: 'default',
  agentMode: true,
  privateMode: false,
  reportMode: 'without',
  outputFormat: 'markdown',
} as const;
const ENGLISH = 'Can you summarize the quarterly report and list the main risks for the next year?';
const GERMAN = 'Die Häuser in der Innenstadt sind im letzten Jahr deutlich teurer geworden, sagt der Bericht.';

/** Where message text is written, its configuration is chosen, and the vector follows once the turn has ended. */
describe('message search: what the writers store', () => {
  const database = useTestDatabase();

  async function searchColumns(id: string) {
    const rows = (await database.dataSource.query(
      `SELECT "search_config" AS "config", "search_vector"::text AS "vector" FROM "conversations"."messages" WHERE "id" = $1`,
      [id],
    )) as { config: string; vector: string | null }[];
    return rows[0];
  }

  async function admit(text: string) {
    const turn = await new TurnsRepository(database.dataSource).admit(OWNER, {
      title: 't',
      text,
      files: [],
      options: OPTIONS,
    });
    if (!turn) throw new Error('not admitted');
    return turn;
  }

  it("stores the user message with its language's configuration and its stemmed vector at admission", async () => {
    const turn = await admit(ENGLISH);
    const user = await searchColumns(turn.userMessageId);
    expect(user?.config).toBe('english');
    expect(user?.vector).toContain("'risk'");
    // The assistant message is processing: no vector yet.
    expect(await searchColumns(turn.runId)).toEqual({ config: 'simple', vector: null });
  });

  it('leaves the assistant text unindexed while heartbeats rewrite it, and stems its final text when the turn ends', async () => {
    const turn = await admit('a short question');
    expect((await searchColumns(turn.userMessageId))?.config).toBe('simple');
    const ledger = new TurnLedger(database.dataSource);
    await ledger.heartbeat([{ runId: turn.runId, text: 'Die Häuser in der' }]);
    expect((await searchColumns(turn.runId))?.vector).toBeNull();
    expect(await ledger.finish(turn.runId, { text: GERMAN, unfinished: false })).toBe(true);
    const ended = await searchColumns(turn.runId);
    expect(ended?.config).toBe('german');
    expect(ended?.vector).toContain("'haus'");
  });

  it('keeps simple for a turn ended without a final text, and stems the text the heartbeats left', async () => {
    const turn = await admit('another short question');
    const ledger = new TurnLedger(database.dataSource);
    await ledger.heartbeat([{ runId: turn.runId, text: 'partial answer about reports' }]);
    await ledger.finish(turn.runId, { unfinished: true });
    expect(await searchColumns(turn.runId)).toEqual({
      config: 'simple',
      vector: "'about':3 'answer':2 'partial':1 'reports':4",
    });
  });

  it('stems only the first 100,000 characters of a 1 MB message, which is stored whole', async () => {
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const text = `${words} ${'x'.repeat(1_000_000 - words.length - 1)}`;
    const turn = await admit(text);
    const stored = (await database.dataSource.query(
      `SELECT char_length("text") AS "length", length("search_vector") AS "lexemes" FROM "conversations"."messages" WHERE "id" = $1`,
      [turn.userMessageId],
    )) as { length: number; lexemes: number }[];
    expect(stored[0]?.length).toBe(1_000_000);
    expect(stored[0]?.lexemes).toBeGreaterThan(10_000);
    expect(stored[0]?.lexemes).toBeLessThan(25_000);
  });
});
