import type { ChatCompletionChunk, ChunkChoice, HtmlUiResource, Task } from '@fed/contracts/chat-chunk';
import { historyItem } from '../history';
import { type StreamEvent, type TurnView, emptyTurn, historyUiResources, isAfter, reduceTurn } from './turn-view';

const at = '2026-12-03T10:00:00.000Z';
const chunk = (choice: Partial<ChunkChoice>, extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk => ({
  createdAt: at,
  model: 'agent',
  choices: [{ index: 0, delta: {}, finishReason: null, ...choice }],
  ...extra,
});
const entry = (id: string | undefined, c: ChatCompletionChunk): StreamEvent => ({ kind: 'chunk', id, chunk: c });
const text = (id: string, content: string) => entry(id, chunk({ delta: { content } }));
const task = (callId: string, status: Task['status']): Task => ({
  messageId: 'm1',
  conversationId: 'c1',
  callId,
  actionType: 'web_search',
  title: `search ${callId}`,
  status,
  timestamp: 1,
  createdAt: at,
  updatedAt: at,
});
const role = entry(
  '1-0',
  chunk({ delta: { role: 'assistant', messageInfo: { conversationId: 'c1', messageId: 'm1' } } }),
);
const run = (events: StreamEvent[], from: TurnView = emptyTurn) => events.reduce(reduceTurn, from);

describe('the stream reducer: chunks in, the turn as shown out', () => {
  it('joins the pieces, knows the message, and ends completed on the final chunk', () => {
    const view = run([
      role,
      text('2-0', 'Hel'),
      text('2-1', 'lo'),
      entry('3-0', chunk({ finishReason: 'stop' })),
      { kind: 'done' },
    ]);
    expect(view).toMatchObject({
      conversationId: 'c1',
      messageId: 'm1',
      text: 'Hello',
      phase: 'completed',
      lastEventId: '3-0',
    });
  });

  it('shows each step once, in the order it started, with its latest status and how it started', () => {
    const view = run([
      role,
      entry('2-0', chunk({ delta: { tasks: [task('a', 'in_progress')] } })),
      entry('3-0', chunk({ delta: { tasks: [task('b', 'in_progress')] } })),
      entry('4-0', chunk({ delta: { tasks: [task('a', 'completed')] } })),
    ]);
    expect(view.steps.map((s) => [s.key, s.first.status, s.latest.status])).toEqual([
      ['a', 'in_progress', 'completed'],
      ['b', 'in_progress', 'in_progress'],
    ]);
  });

  it('changes nothing for entries repeated after a resume, or an older one arriving late', () => {
    const before = run([role, text('2-0', 'one '), text('3-0', 'two ')]);
    const resumed = run([text('2-0', 'one '), text('3-0', 'two '), text('4-0', 'three')], before);
    expect(resumed.text).toBe('one two three');
    expect(run([text('1-5', 'stale')], resumed)).toBe(resumed);
    expect(resumed.lastEventId).toBe('4-0');
  });

  it('orders entry ids by time, then sequence, as numbers', () => {
    expect(isAfter('10-0', '9-9')).toBe(true);
    expect(isAfter('5-10', '5-9')).toBe(true);
    expect(isAfter('5-1', '5-1')).toBe(false);
  });

  it('fails with the error chunk, which the relay sends without an id (stream_lost) and applies after any entry', () => {
    const lost = chunk(
      { finishReason: 'error', status: 'unfinished' },
      { error: { code: 'stream_lost', message: 'The live stream of this answer was lost' } },
    );
    const view = run([role, text('2-0', 'partial'), entry(undefined, lost), { kind: 'done' }]);
    expect(view).toMatchObject({
      phase: 'failed',
      text: 'partial',
      error: { code: 'stream_lost' },
      lastEventId: '2-0',
    });
  });

  it('ends unfinished when stopped (cancel), or when [DONE] comes without a final chunk', () => {
    expect(
      run([role, text('2-0', 'a'), entry('3-0', chunk({ finishReason: 'stop', status: 'unfinished' }))]).phase,
    ).toBe('unfinished');
    expect(run([role, text('2-0', 'a'), { kind: 'done' }]).phase).toBe('unfinished');
  });

  it('keeps the interaction asked, the UI resources shown and the deliverables of the final chunk', () => {
    const deliverable = {
      filename: 'r.md',
      filepath: 'deliverables/r.md',
      source: 'agent' as const,
      isPrimary: true,
      createdAt: at,
    };
    const view = run([
      role,
      entry(
        '2-0',
        chunk({
          delta: { uiResource: { type: 'data', origin: 'first-party', altText: 'a map', kind: 'map', data: {} } },
        }),
      ),
      entry('3-0', chunk({ delta: { interaction: { interactionType: 'confirmation', content: 'Send the e-mail?' } } })),
      entry('4-0', chunk({ finishReason: 'stop', deliverables: [deliverable] })),
    ]);
    expect(view.uiResources.map((r) => r.altText)).toEqual(['a map']);
    expect(view.interaction).toEqual({ interactionType: 'confirmation', content: 'Send the e-mail?' });
    expect(view.deliverables).toEqual([deliverable]);
  });

  const card: HtmlUiResource = {
    type: 'html',
    origin: 'first-party',
    altText: 'Which city?\n- Paris\n- Lyon',
    tool_call_id: 'call_card',
    uri: 'ui://federation/choice-card/call_card',
    tool_name: 'ask_user',
    server_name: 'federation',
    mime_type: 'text/html;profile=mcp-app',
    capabilities: { interaction_mode: 'closed' },
  };
  const weather: HtmlUiResource = {
    ...card,
    origin: 'external',
    altText: 'An external tool server returned a UI resource.',
    tool_call_id: 'call_weather',
    uri: 'ui://weather/forecast.html',
    tool_name: 'show_weather',
    server_name: 'weather',
    meta: { csp: { connectDomains: ['https://api.weather.example'] } },
  };
  const withMetadata = (callId: string, status: Task['status'], metadata: Record<string, unknown>): Task => ({
    ...task(callId, status),
    actionType: 'tool_result',
    metadata,
  });

  it("keeps the interaction's UI resource (a choice card) beside its request, and a display UI resource once after a resume", () => {
    const asked = entry(
      '3-0',
      chunk({ delta: { interaction: { interactionType: 'choice', content: 'Which city?', uiResource: card } } }),
    );
    const shown = entry('2-0', chunk({ delta: { uiResource: weather } }));
    const view = run([role, shown, asked, shown, asked]);
    expect(view.interaction).toEqual({ interactionType: 'choice', content: 'Which city?', uiResource: card });
    expect(view.uiResources).toEqual([weather]);
  });

  it("restores history's UI resources from task metadata: display UI to the answer, input UI to its pending request", () => {
    const tasks = [
      withMetadata('call_weather', 'completed', { toolName: 'weather__show_weather', uiResource: weather }),
      withMetadata('call_plain', 'completed', { toolName: 'web_search' }),
      withMetadata('call_bad', 'completed', { uiResource: { type: 'html', altText: 'no id' } }),
      withMetadata('call_card', 'pending', { toolName: 'ask_user', interaction_type: 'choice', uiResource: card }),
    ];
    expect(historyUiResources(tasks)).toEqual({ display: [weather], input: card });
    const item = historyItem({
      conversationId: 'c1',
      messageId: 'm1',
      sender: 'AI',
      text: 'Which city?',
      createdAt: at,
      status: { processing: false, unfinished: false },
      tasks,
    });
    expect(item.kind === 'assistant' && item.view.uiResources).toEqual([weather]);
    expect(item.kind === 'assistant' && item.view.interaction).toEqual({
      interactionType: 'choice',
      content: '',
      uiResource: card,
    });
  });
});
