import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import type { PendingInteraction, TurnOptions } from '../storage';
import { HISTORY_LIMIT, TurnLedger } from './turn-ledger';

const OPTIONS: TurnOptions = {
  agentLevel: 'high_performance',
  agentMode: true,
  privateMode: true,
  reportMode: 'without',
  outputFormat: 'markdown',
  personaKey: 'pirate',
};

describe('turn ledger', () => {
  const database = useTestDatabase();
  let ledger: TurnLedger;

  beforeAll(() => {
    ledger = new TurnLedger(database.dataSource);
  });

  async function conversation(): Promise<string> {
    const id = randomUUID();
    await database.dataSource.query(
      `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
       VALUES ($1, 'user-1', 'tenant-1', 't', now() - interval '1 hour', now() - interval '1 hour')`,
      [id],
    );
    return id;
  }

  async function message(
    conversationId: string,
    fields: {
      sender: 'User' | 'AI';
      text?: string;
      processing?: boolean;
      replyTo?: string;
      options?: TurnOptions;
      files?: unknown[];
      pending?: PendingInteraction;
    },
  ): Promise<string> {
    const id = randomUUID();
    await database.dataSource.query(
      `INSERT INTO "conversations"."messages"
         ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "processing", "turn_options", "reply_to",
          "files", "pending_interaction", "created_at", "updated_at")
       VALUES ($1, $2, 'user-1', 'tenant-1', $3, $4, $5, $6, $7, $8, $9, now(), now())`,
      [
        id,
        conversationId,
        fields.sender,
        fields.text ?? '',
        fields.processing ?? false,
        fields.options ? JSON.stringify(fields.options) : null,
        fields.replyTo ?? null,
        fields.files ? JSON.stringify(fields.files) : null,
        fields.pending ? JSON.stringify(fields.pending) : null,
      ],
    );
    return id;
  }

  async function turn(conversationId: string, text = 'question') {
    const userMessageId = await message(conversationId, { sender: 'User', text });
    const runId = await message(conversationId, {
      sender: 'AI',
      processing: true,
      replyTo: userMessageId,
      options: OPTIONS,
    });
    return { userMessageId, runId };
  }

  async function row(id: string): Promise<Record<string, unknown>> {
    const rows = (await database.dataSource.query(`SELECT * FROM "conversations"."messages" WHERE "id" = $1`, [
      id,
    ])) as Record<string, unknown>[];
    return rows[0];
  }

  describe('claim', () => {
    it('marks the turn taken and returns its options, the user message with its files, and the history oldest first', async () => {
      const conversationId = await conversation();
      await message(conversationId, { sender: 'User', text: 'first' });
      await message(conversationId, { sender: 'AI', text: 'first answer' });
      const stored = { fileId: randomUUID(), mimeType: 'image/png', width: 2, height: 3, filename: 'a.png' };
      const deleted = { fileId: randomUUID(), mimeType: 'text/plain', filename: 'gone.txt' };
      const library = { fileId: randomUUID(), mimeType: 'text/markdown', filename: 'b.md', filepath: 'docs/b.md' };
      await database.dataSource.query(
        `INSERT INTO "conversations"."files"
           ("id", "user_id", "tenant_id", "filename", "bytes", "mime_type", "blob_key", "state", "created_at")
         VALUES ($1, 'user-1', 'tenant-1', 'a.png', 42, 'image/png', $2, 'stored', now())`,
        [stored.fileId, `uploads/${stored.fileId}`],
      );
      const files = [stored, deleted, library];
      const userMessageId = await message(conversationId, { sender: 'User', text: 'second', files });
      const runId = await message(conversationId, {
        sender: 'AI',
        processing: true,
        replyTo: userMessageId,
        options: OPTIONS,
      });

      const claimed = await ledger.claim(runId);
      expect(claimed).toEqual({
        runId,
        conversationId,
        userId: 'user-1',
        tenantId: 'tenant-1',
        options: OPTIONS,
        text: '',
        // Uploads come with their blob (null: deleted since); library files are the runtime's to read.
        userMessage: {
          messageId: userMessageId,
          text: 'second',
          files: [
            { ...stored, blobKey: `uploads/${stored.fileId}`, bytes: 42 },
            { ...deleted, blobKey: null },
            library,
          ],
        },
        history: [
          { sender: 'User', text: 'first' },
          { sender: 'AI', text: 'first answer' },
        ],
        pendingInteraction: null,
        cancelRequested: false,
      });
      expect((await row(runId)).heartbeat_at).not.toBeNull();
    });

    it('bounds the history to the last 40 messages', async () => {
      const conversationId = await conversation();
      for (let i = 0; i < HISTORY_LIMIT + 5; i++) {
        await message(conversationId, { sender: i % 2 === 0 ? 'User' : 'AI', text: `m${i}` });
      }
      const { runId } = await turn(conversationId);
      const claimed = await ledger.claim(runId);
      expect(claimed?.history).toHaveLength(HISTORY_LIMIT);
      expect(claimed?.history[0].text).toBe('m5');
      expect(claimed?.history.at(-1)?.text).toBe(`m${HISTORY_LIMIT + 4}`);
    });

    it('reports a requested cancel', async () => {
      const { runId } = await turn(await conversation());
      await database.dataSource.query(
        `UPDATE "conversations"."messages" SET "cancel_requested_at" = now() WHERE "id" = $1`,
        [runId],
      );
      expect((await ledger.claim(runId))?.cancelRequested).toBe(true);
    });

    it('returns nothing for a turn no longer processing, a user message or an unknown id', async () => {
      const { userMessageId, runId } = await turn(await conversation());
      await ledger.finish(runId, { unfinished: false });
      expect(await ledger.claim(runId)).toBeNull();
      expect(await ledger.claim(userMessageId)).toBeNull();
      expect(await ledger.claim(randomUUID())).toBeNull();
    });

    it('returns the pending interaction of the assistant message just before the user message, outside the history', async () => {
      const conversationId = await conversation();
      const pending: PendingInteraction = {
        callId: 'call_1',
        toolName: 'ask_user',
        arguments: '{"interactionType":"question","content":"Where?"}',
        assistantText: 'One question.',
      };
      await message(conversationId, { sender: 'User', text: 'Plan a trip' });
      await message(conversationId, { sender: 'AI', text: 'One question.', pending });
      const { runId } = await turn(conversationId, 'Rome');
      const claimed = await ledger.claim(runId);
      expect(claimed?.pendingInteraction).toEqual(pending);
      expect(claimed?.history).toEqual([{ sender: 'User', text: 'Plan a trip' }]);
    });

    it('ignores a pending interaction that the user already answered', async () => {
      const conversationId = await conversation();
      const pending = { callId: 'c', toolName: 'ask_user', arguments: '{}', assistantText: '' };
      await message(conversationId, { sender: 'AI', text: 'asked', pending });
      await message(conversationId, { sender: 'User', text: 'answer' });
      await message(conversationId, { sender: 'AI', text: 'thanks' });
      const { runId } = await turn(conversationId);
      const claimed = await ledger.claim(runId);
      expect(claimed?.pendingInteraction).toBeNull();
      expect(claimed?.history.map((entry) => entry.text)).toEqual(['asked', 'answer', 'thanks']);
    });
  });

  describe('heartbeat', () => {
    it('refreshes every running turn and stores its text in one statement, and names the turns still processing', async () => {
      const a = await turn(await conversation());
      const b = await turn(await conversation());
      const done = await turn(await conversation());
      await ledger.finish(done.runId, { text: 'final', unfinished: false });
      await database.dataSource.query(
        `UPDATE "conversations"."messages" SET "cancel_requested_at" = now() WHERE "id" = $1`,
        [b.runId],
      );

      const live = await ledger.heartbeat([
        { runId: a.runId, text: 'partial a' },
        { runId: b.runId, text: 'partial b' },
        { runId: done.runId, text: 'stale' },
      ]);
      expect(live.sort((x, y) => x.runId.localeCompare(y.runId))).toEqual(
        [
          { runId: a.runId, cancelRequested: false },
          { runId: b.runId, cancelRequested: true },
        ].sort((x, y) => x.runId.localeCompare(y.runId)),
      );
      expect((await row(a.runId)).text).toBe('partial a');
      expect((await row(b.runId)).text).toBe('partial b');
      expect((await row(done.runId)).text).toBe('final');
      expect((await row(a.runId)).heartbeat_at).not.toBeNull();
      expect(await ledger.heartbeat([])).toEqual([]);
    });
  });

  describe('tasks', () => {
    it('stores a task once per id, replacing its state', async () => {
      const conversationId = await conversation();
      const { runId } = await turn(conversationId);
      const at = new Date();
      const task = {
        id: randomUUID(),
        messageId: runId,
        conversationId,
        position: 0,
        callId: 'call_1',
        actionType: 'tool_start',
        title: 'Searching',
        status: 'in_progress' as const,
        metadata: { toolName: 'search_memory' },
        timestamp: at.getTime(),
        createdAt: at,
        updatedAt: at,
      };
      await ledger.saveTask(task);
      await ledger.saveTask({ ...task, status: 'completed', description: 'done', updatedAt: new Date() });
      const rows = (await database.dataSource.query(`SELECT * FROM "conversations"."tasks" WHERE "message_id" = $1`, [
        runId,
      ])) as Record<string, unknown>[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        status: 'completed',
        description: 'done',
        call_id: 'call_1',
        title: 'Searching',
        metadata: { toolName: 'search_memory' },
        timestamp: String(task.timestamp),
        files: null,
        content: null,
      });
    });
  });

  describe('finish', () => {
    it('clears processing, stores the outcome and touches the message and its conversation, once', async () => {
      const conversationId = await conversation();
      const { runId } = await turn(conversationId);
      const pending = { callId: 'c', toolName: 'ask_user', arguments: '{}', assistantText: 'a' };
      expect(await ledger.finish(runId, { text: 'the answer', unfinished: true, pendingInteraction: pending })).toBe(
        true,
      );
      const stored = await row(runId);
      expect(stored).toMatchObject({
        processing: false,
        unfinished: true,
        text: 'the answer',
        pending_interaction: pending,
      });
      const [touched] = (await database.dataSource.query(
        `SELECT "updated_at" FROM "conversations"."conversations" WHERE "id" = $1`,
        [conversationId],
      )) as { updated_at: Date }[];
      expect(touched.updated_at.getTime()).toBe((stored.updated_at as Date).getTime());

      expect(await ledger.finish(runId, { text: 'again', unfinished: false })).toBe(false);
      expect((await row(runId)).text).toBe('the answer');
    });

    it('keeps the stored text when none is given', async () => {
      const { runId } = await turn(await conversation());
      await ledger.heartbeat([{ runId, text: 'shown before' }]);
      await ledger.finish(runId, { unfinished: true });
      expect(await row(runId)).toMatchObject({
        text: 'shown before',
        unfinished: true,
        processing: false,
        error: null,
      });
    });

    it('keeps why a failed turn failed (the chunk log expires, the row stays)', async () => {
      const { runId } = await turn(await conversation());
      const error = { code: 'turn_timeout', message: 'The answer took too long.' };
      await ledger.finish(runId, { unfinished: true, error });
      expect(await row(runId)).toMatchObject({ unfinished: true, error });
    });
  });
});
