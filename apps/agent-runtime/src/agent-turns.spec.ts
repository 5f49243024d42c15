import type { ChatCompletionChunk, Task } from '@fed/contracts';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { type RunningAgentRuntime, UPSTREAM_MODELS, bootAgentRuntime } from './testing/boot-agent-runtime';
import { sentRequest, textAnswer, toolCallAnswer } from './testing/model-answers';
import {
  type TurnSetup,
  readToEnd,
  sql,
  startTurn,
  storedMessage,
  storedTasks,
  streamedText,
} from './testing/turn-fixture';

const tasksOf = (chunks: readonly ChatCompletionChunk[]): Task[] =>
  chunks.flatMap((chunk) => chunk.choices[0].delta.tasks ?? []);
const contentChunks = (chunks: readonly ChatCompletionChunk[]) =>
  chunks.filter((chunk) => chunk.choices[0].delta.content !== undefined && chunk.choices[0].finishReason === null);

/** Agent turns end to end: runtime, gateway and a scripted model provider in one service. */
describe('agent runtime: answering turns', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let runtime: RunningAgentRuntime;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    runtime = await bootAgentRuntime({ databaseUrl: database.url, upstreamUrl: upstream.url });
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await database?.drop();
  });

  beforeEach(() => upstream.reset());

  async function run(setup: TurnSetup) {
    const turn = await startTurn(runtime, setup);
    const chunks = await readToEnd(runtime.service.bus.runStream, turn.runId);
    return { turn, chunks, stored: await storedMessage(runtime, turn.runId) };
  }

  describe('a plain answer', () => {
    it('is streamed as content chunks after the role chunk, ends with stop, and is stored equal to the stream', async () => {
      upstream.enqueue(textAnswer(['Hello', ' there,', ' friend.']));
      const { turn, chunks, stored } = await run({ text: 'Hi!' });

      expect(chunks[0].choices[0].delta.role).toBe('assistant');
      expect(streamedText(chunks)).toBe('Hello there, friend.');
      const last = chunks.at(-1) as ChatCompletionChunk;
      expect(last.choices[0].finishReason).toBe('stop');
      expect(last.choices[0].status).toBeUndefined();
      expect(chunks.every((chunk) => chunk.model === runtime.config.chat.modelName)).toBe(true);
      expect(chunks.slice(1, -1).every((chunk) => chunk.choices[0].finishReason === null)).toBe(true);

      expect(stored).toMatchObject({ text: 'Hello there, friend.', processing: false, unfinished: false });
      const [conversation] = (await sql(
        runtime,
        `SELECT "updated_at" FROM "conversations"."conversations" WHERE "id" = $1`,
        [turn.conversationId],
      )) as { updated_at: Date }[];
      expect(conversation.updated_at.getTime()).toBe(stored.updated_at.getTime());
    });

    it('asks the gateway for the default level model, streaming, with the user message last', async () => {
      upstream.enqueue(textAnswer(['ok']));
      await run({ text: 'What time is it?' });
      const sent = sentRequest(upstream.requests[0]);
      expect(sent.model).toBe(UPSTREAM_MODELS.default);
      expect(sent.stream).toBe(true);
      expect(sent.messages[0].role).toBe('system');
      expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'What time is it?' });
    });

    it('uses the high-performance model for agentLevel high_performance', async () => {
      upstream.enqueue(textAnswer(['fast']));
      await run({ text: 'Go', options: { agentLevel: 'high_performance' } });
      expect(sentRequest(upstream.requests[0]).model).toBe(UPSTREAM_MODELS.high_performance);
    });

    it('agentMode false sends the model no tools and makes a single call', async () => {
      upstream.enqueue(textAnswer(['No tools here.']));
      const { chunks } = await run({ text: 'Hi', options: { agentMode: false } });
      expect(upstream.requests).toHaveLength(1);
      const sent = sentRequest(upstream.requests[0]);
      expect(sent.tools).toBeUndefined();
      expect(sent.tool_choice).toBeUndefined();
      expect(streamedText(chunks)).toBe('No tools here.');
    });

    it('agentMode true offers the built-in tools search_memory, save_memory, ask_user, show_map and write_file', async () => {
      upstream.enqueue(textAnswer(['Sure.']));
      await run({ text: 'Hi' });
      expect(sentRequest(upstream.requests[0]).tools?.map((tool) => tool.function.name)).toEqual([
        'search_memory',
        'save_memory',
        'ask_user',
        'show_map',
        'write_file',
      ]);
    });
  });

  describe('prompt', () => {
    it('carries the persona, playbook and skills, skipping deactivated and unavailable ones', async () => {
      const playbookId = randomUUID();
      const inactivePlaybook = randomUUID();
      const skillId = randomUUID();
      const unavailableSkill = randomUUID();
      await sql(
        runtime,
        `INSERT INTO "agent"."personas" ("key", "name", "description", "instructions", "created_at", "updated_at")
         VALUES ('pirate', 'Pirate', 'd', 'Speak like a pirate.', now(), now())`,
      );
      await sql(
        runtime,
        `INSERT INTO "agent"."playbooks" ("id", "name", "description", "instructions", "active", "created_at", "updated_at")
         VALUES ($1, 'Travel', 'd', 'Plan trips step by step.', true, now(), now()),
                ($2, 'Old', 'd', 'Retired playbook text.', false, now(), now())`,
        [playbookId, inactivePlaybook],
      );
      await sql(
        runtime,
        `INSERT INTO "agent"."skills" ("id", "name", "description", "instructions", "available", "created_at", "updated_at")
         VALUES ($1, 'Maps', 'd', 'Read maps well.', true, now(), now()),
                ($2, 'Gone', 'd', 'Unavailable skill text.', false, now(), now())`,
        [skillId, unavailableSkill],
      );
      upstream.enqueue(textAnswer(['Arr.']), textAnswer(['Arr again.']));
      await run({ text: 'a', options: { personaKey: 'pirate', playbookId, skillIds: [unavailableSkill, skillId] } });
      await run({ text: 'b', options: { playbookId: inactivePlaybook, personaKey: 'unknown' } });

      const first = sentRequest(upstream.requests[0]).messages[0].content as string;
      expect(first).toContain('Speak like a pirate.');
      expect(first).toContain('Plan trips step by step.');
      expect(first).toContain('Read maps well.');
      expect(first).not.toContain('Unavailable skill text.');
      const second = sentRequest(upstream.requests[1]).messages[0].content as string;
      expect(second).not.toContain('Retired playbook text.');
      expect(second).not.toContain('pirate');
    });

    it("gives the model the conversation's earlier messages, oldest first", async () => {
      upstream.enqueue(textAnswer(['Answer one.']), textAnswer(['Answer two.']));
      const { turn } = await run({ text: 'Question one' });
      await run({ conversationId: turn.conversationId, text: 'Question two' });
      const messages = sentRequest(upstream.requests[1]).messages.slice(1);
      expect(messages).toEqual([
        { role: 'user', content: 'Question one' },
        { role: 'assistant', content: 'Answer one.' },
        { role: 'user', content: 'Question two' },
      ]);
    });
  });

  describe('tools', () => {
    it('runs search_memory: tool_start then tool_result completed with a shared callId, stored as tasks, results given to the model', async () => {
      await sql(
        runtime,
        `INSERT INTO "memory"."entries" ("id", "tenant_id", "title", "content", "source", "created_at", "updated_at")
         VALUES ($1, 'tenant-1', 'Paris office', 'The Paris office opens at nine.', 'admin', now(), now()),
                ($2, NULL, 'Offices', 'Every office closes at six, Paris included.', NULL, now(), now()),
                ($3, 'tenant-2', 'Paris office', 'Secret of another tenant.', NULL, now(), now())`,
        [randomUUID(), randomUUID(), randomUUID()],
      );
      upstream.enqueue(
        toolCallAnswer(
          [{ id: 'call_1', name: 'search_memory', arguments: { query: 'Paris office' } }],
          'Let me check.',
        ),
        textAnswer(['It opens at nine.']),
      );
      const { turn, chunks, stored } = await run({
        text: 'When does the office open?',
        options: { reportMode: 'without' },
      });

      const taskChunks = chunks.filter((chunk) => chunk.choices[0].delta.tasks);
      expect(taskChunks.map((chunk) => chunk.choices[0].delta.tasks?.length)).toEqual([1, 1]);
      const [start, result] = tasksOf(chunks);
      expect(start).toMatchObject({
        actionType: 'tool_start',
        status: 'in_progress',
        callId: 'call_1',
        title: 'Searching shared memory',
        description: 'Looking for “Paris office”',
        messageId: turn.runId,
        conversationId: turn.conversationId,
      });
      expect(result).toMatchObject({
        actionType: 'tool_result',
        status: 'completed',
        callId: 'call_1',
        title: 'Searched shared memory',
        description: 'Looked for “Paris office”: 2 results',
      });
      expect(typeof result.timestamp).toBe('number');
      expect(new Date(result.createdAt).getTime()).toBe(result.timestamp);
      // Text before the call is shown before its tasks; the answer after them.
      const order = chunks.map((chunk) =>
        chunk.choices[0].delta.tasks ? chunk.choices[0].delta.tasks[0].actionType : chunk.choices[0].delta.content,
      );
      expect(order.indexOf('Let me check.')).toBeLessThan(order.indexOf('tool_start'));
      expect(order.indexOf('tool_result')).toBeLessThan(order.indexOf('\n\nIt opens at nine.'));
      expect(stored.text).toBe('Let me check.\n\nIt opens at nine.');
      expect(streamedText(chunks)).toBe(stored.text);

      const rows = await storedTasks(runtime, turn.runId);
      expect(rows.map((row) => [row.position, row.action_type, row.status, row.call_id, row.title])).toEqual([
        [0, 'tool_start', 'in_progress', 'call_1', 'Searching shared memory'],
        [1, 'tool_result', 'completed', 'call_1', 'Searched shared memory'],
      ]);

      const second = sentRequest(upstream.requests[1]).messages;
      expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1' }] });
      const toolMessage = second.at(-1) as { role: string; tool_call_id: string; content: string };
      expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
      const found = (JSON.parse(toolMessage.content) as { results: { content: string }[] }).results;
      expect(found.map((entry) => entry.content).sort()).toEqual([
        'Every office closes at six, Paris included.',
        'The Paris office opens at nine.',
      ]);
    });

    it('answers an unknown tool with a failed task and an error result, and the loop goes on', async () => {
      upstream.enqueue(
        toolCallAnswer([{ id: 'call_x', name: 'launch_rockets', arguments: {} }]),
        textAnswer(['I cannot do that.']),
      );
      const { turn, chunks, stored } = await run({ text: 'Launch', options: { reportMode: 'without' } });
      expect(tasksOf(chunks).map((task) => [task.actionType, task.status, task.callId])).toEqual([
        ['tool_start', 'in_progress', 'call_x'],
        ['tool_result', 'failed', 'call_x'],
      ]);
      expect(tasksOf(chunks)[1].title).toBe('Unknown tool');
      const toolMessage = sentRequest(upstream.requests[1]).messages.at(-1);
      expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_x' });
      expect(toolMessage?.content).toContain('no tool named');
      expect(stored).toMatchObject({ text: 'I cannot do that.', unfinished: false, processing: false });
      expect((await storedTasks(runtime, turn.runId)).map((row) => row.status)).toEqual(['in_progress', 'failed']);
    });

    it('answers arguments that do not validate (wrong fields, broken JSON) with failed tasks', async () => {
      upstream.enqueue(
        toolCallAnswer([
          { id: 'call_a', name: 'search_memory', arguments: { q: 1 } },
          { id: 'call_b', name: 'search_memory', arguments: '{"query": ' },
        ]),
        textAnswer(['Sorry.']),
      );
      const { chunks } = await run({ text: 'x', options: { reportMode: 'without' } });
      expect(tasksOf(chunks).map((task) => [task.callId, task.status])).toEqual([
        ['call_a', 'in_progress'],
        ['call_a', 'failed'],
        ['call_b', 'in_progress'],
        ['call_b', 'failed'],
      ]);
      const messages = sentRequest(upstream.requests[1]).messages;
      expect(messages.slice(-2).map((message) => message.tool_call_id)).toEqual(['call_a', 'call_b']);
      expect(messages.at(-1)?.content).toContain('not valid JSON');
    });

    it("ask_user ends the turn with delta.interaction; the next turn gives the model the user's answer as the tool result", async () => {
      const askArgs = { interactionType: 'choice', content: 'Which city?', options: ['Paris', 'Rome'] };
      upstream.enqueue(toolCallAnswer([{ id: 'call_ask', name: 'ask_user', arguments: askArgs }], 'One detail first.'));
      const first = await run({ text: 'Plan a trip' });

      expect(upstream.requests).toHaveLength(1);
      const interactionChunk = first.chunks.find((chunk) => chunk.choices[0].delta.interaction);
      expect(interactionChunk?.choices[0].delta.interaction).toEqual({
        interactionType: 'choice',
        content: 'Which city?',
        options: ['Paris', 'Rome'],
      });
      expect(interactionChunk?.choices[0].delta.tasks?.[0]).toMatchObject({
        actionType: 'tool_result',
        status: 'pending',
        callId: 'call_ask',
        content: 'Which city?',
        metadata: { interaction_type: 'choice', options: ['Paris', 'Rome'] },
      });
      const last = first.chunks.at(-1) as ChatCompletionChunk;
      expect(last.choices[0].finishReason).toBe('stop');
      expect(last.choices[0].status).toBeUndefined();
      expect(first.stored).toMatchObject({ text: 'One detail first.', processing: false, unfinished: false });
      expect(first.stored.pending_interaction).toEqual({
        callId: 'call_ask',
        toolName: 'ask_user',
        arguments: JSON.stringify(askArgs),
        assistantText: 'One detail first.',
      });
      // No work report: the turn is waiting for the user, not done.
      expect(streamedText(first.chunks)).toBe('One detail first.');

      upstream.enqueue(textAnswer(['Rome it is.']));
      const second = await run({ conversationId: first.turn.conversationId, text: 'Rome' });
      const messages = sentRequest(upstream.requests[1]).messages;
      expect(messages.slice(1)).toEqual([
        { role: 'user', content: 'Plan a trip' },
        {
          role: 'assistant',
          content: 'One detail first.',
          tool_calls: [
            { id: 'call_ask', type: 'function', function: { name: 'ask_user', arguments: JSON.stringify(askArgs) } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_ask', content: 'Rome' },
      ]);
      expect(second.stored.text).toBe('Rome it is.');
    });

    it('ask_user refuses options for a question: a failed task, and the loop goes on', async () => {
      upstream.enqueue(
        toolCallAnswer([
          {
            id: 'call_q',
            name: 'ask_user',
            arguments: { interactionType: 'question', content: 'Name?', options: ['A'] },
          },
        ]),
        textAnswer(['Fine.']),
      );
      const { chunks, stored } = await run({ text: 'x', options: { reportMode: 'without' } });
      expect(chunks.some((chunk) => chunk.choices[0].delta.interaction)).toBe(false);
      expect(tasksOf(chunks).map((task) => task.status)).toEqual(['in_progress', 'failed']);
      expect(stored).toMatchObject({ text: 'Fine.', pending_interaction: null });
    });

    it('stops after AGENT_MAX_STEPS model calls, the last one asked to answer in text, and ends unfinished', async () => {
      const search = (id: string) => toolCallAnswer([{ id, name: 'search_memory', arguments: { query: id } }]);
      upstream.enqueue(search('s1'), search('s2'), search('s3'), search('s4'));
      const { chunks, stored } = await run({ text: 'Loop forever' });

      expect(upstream.requests).toHaveLength(runtime.config.agent.maxSteps);
      expect(upstream.requests.map((request) => sentRequest(request).tool_choice)).toEqual([
        undefined,
        undefined,
        undefined,
        'none',
      ]);
      // The last call's tools are not run: nobody would read their results.
      expect(tasksOf(chunks).map((task) => task.callId)).toEqual(['s1', 's1', 's2', 's2', 's3', 's3']);
      const last = chunks.at(-1) as ChatCompletionChunk;
      expect(last.choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
      expect(stored).toMatchObject({ processing: false, unfinished: true });
      expect(stored.text).toContain('Stopped after 4 model calls');
    });
  });

  describe('chunks', () => {
    it('coalesces text deltas that arrive together into fewer chunks, the text unchanged', async () => {
      const pieces = Array.from({ length: 60 }, (_, i) => `w${i} `);
      upstream.enqueue(textAnswer(pieces));
      const { chunks, stored } = await run({ text: 'Many words', options: { outputFormat: 'markdown' } });
      expect(contentChunks(chunks).length).toBeLessThan(pieces.length / 4);
      expect(streamedText(chunks)).toBe(pieces.join(''));
      expect(stored.text).toBe(pieces.join(''));
    });

    it('sends deltas further apart than AGENT_COALESCE_MS as chunks of their own, in order', async () => {
      upstream.enqueue(textAnswer(['one ', 'two ', 'three'], { pauseMs: 150 }));
      const { chunks } = await run({ text: 'Slowly', options: { outputFormat: 'markdown' } });
      expect(contentChunks(chunks).map((chunk) => chunk.choices[0].delta.content)).toEqual(['one ', 'two ', 'three']);
    });
  });

  describe('outputFormat', () => {
    const markdownPieces = [
      '# Ti',
      'tle\nSome **bo',
      'ld** and `co',
      'de`.\n``',
      '`mermaid\ngraph TD;\n```\n```js\nlet a = 1;\n```\n',
      '[a link](https://x.example/a_b)',
    ];

    it('plain strips Markdown in the stream and in the stored text, markers split across deltas included', async () => {
      upstream.enqueue(textAnswer(markdownPieces));
      const { chunks, stored } = await run({ text: 'Format', options: { outputFormat: 'plain' } });
      const plain = 'Title\nSome bold and code.\nlet a = 1;\na link (https://x.example/a_b)';
      expect(streamedText(chunks)).toBe(plain);
      expect(stored.text).toBe(plain);
    });

    it('markdown keeps the text as the model wrote it', async () => {
      upstream.enqueue(textAnswer(markdownPieces));
      const { chunks, stored } = await run({ text: 'Format', options: { outputFormat: 'markdown' } });
      expect(streamedText(chunks)).toBe(markdownPieces.join(''));
      expect(stored.text).toBe(markdownPieces.join(''));
    });
  });

  describe('reportMode', () => {
    const toolThenAnswer = () => [
      toolCallAnswer([{ id: 'call_r', name: 'search_memory', arguments: { query: 'budget' } }]),
      textAnswer(['Done.']),
    ];

    it('with (the default) appends a work report after a turn that ran tools, in plain text when plain', async () => {
      upstream.enqueue(...toolThenAnswer());
      const { chunks, stored } = await run({ text: 'Report' });
      expect(stored.text).toBe(
        'Done.\n\nWork report (1 tool call, 2 model calls)\n\n- Searched shared memory — Looked for “budget”: 0 results\n',
      );
      expect(streamedText(chunks)).toBe(stored.text);
    });

    it('with appends the report in Markdown when the output format is markdown', async () => {
      upstream.enqueue(...toolThenAnswer());
      const { stored } = await run({ text: 'Report', options: { outputFormat: 'markdown' } });
      expect(stored.text).toContain('**Work report** (1 tool call, 2 model calls)');
    });

    it('without appends no report', async () => {
      upstream.enqueue(...toolThenAnswer());
      const { stored } = await run({ text: 'Report', options: { reportMode: 'without' } });
      expect(stored.text).toBe('Done.');
    });

    it('with appends nothing to a turn that ran no tools', async () => {
      upstream.enqueue(textAnswer(['Just text.']));
      const { stored } = await run({ text: 'Report' });
      expect(stored.text).toBe('Just text.');
    });
  });
});
