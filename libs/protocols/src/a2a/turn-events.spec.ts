import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import { type ChatCompletionChunk, contentChunk, errorChunk, finalChunk, roleChunk } from '@fed/contracts';
import { type ConversationRecords } from '@fed/conversations';
import { summaryOf } from './a2a-wire';
import { historyWindow, taskFromRecords } from './task-view';
import { TurnEvents } from './turn-events';
import { normaliseParams } from './turn-input';

const turn = { conversationId: 'c1', messageId: 'm1' };
const BASE = 'https://api.example.com';

function translateAll(chunks: ChatCompletionChunk[]): { events: StreamResponse[]; translator: TurnEvents } {
  const translator = new TurnEvents(turn, BASE);
  const events = chunks.flatMap((chunk, index) => translator.translate(`1-${index}`, chunk));
  return { events, translator };
}

const describeEvent = (event: StreamResponse) => {
  const payload = event.payload;
  if (payload?.$case === 'statusUpdate') {
    const part = payload.value.status?.message?.parts[0]?.content;
    return `${payload.value.status?.state}:${part?.$case === 'text' ? part.value : ''}`;
  }
  return payload?.$case === 'artifactUpdate' ? `artifact:${payload.value.artifact?.artifactId}` : payload?.$case;
};

const map = { type: 'data' as const, origin: 'first-party' as const, altText: 'Map: Tea: Leaf', kind: 'map', data: {} };
const task = (extra: Record<string, unknown>) => ({
  messageId: 'm1',
  conversationId: 'c1',
  actionType: 'tool_result',
  status: 'completed' as const,
  timestamp: 0,
  createdAt: '',
  updatedAt: '',
  ...extra,
});

describe('TurnEvents', () => {
  it('turns text into working pieces and ends with the result artifact, then completed with a summary', () => {
    const { events } = translateAll([
      roleChunk('m', 'c1', 'm1'),
      contentChunk('m', { content: 'Hello ' }),
      contentChunk('m', { content: 'world.' }),
      finalChunk('m', 'stop'),
    ]);
    expect(events.map(describeEvent)).toEqual([
      `${TaskState.TASK_STATE_WORKING}:Hello `,
      `${TaskState.TASK_STATE_WORKING}:world.`,
      'artifact:result-m1',
      `${TaskState.TASK_STATE_COMPLETED}:Hello world.`,
    ]);
  });

  it("names display UI by its tool call's task and sends its altText as the working status just before it", () => {
    const { events } = translateAll([
      contentChunk('m', {
        tasks: [task({ callId: 'call_map', title: 'Showing a map', metadata: { uiResource: map } })],
      }),
      contentChunk('m', { content: map.altText, uiResource: map }),
      finalChunk('m', 'stop'),
    ]);
    expect(events.map(describeEvent).slice(0, 3)).toEqual([
      `${TaskState.TASK_STATE_WORKING}:Showing a map`,
      `${TaskState.TASK_STATE_WORKING}:${map.altText}`,
      'artifact:ui-resource-call_map',
    ]);
  });

  it('ends asking: the interaction artifact, no result, input-required with the question and its type', () => {
    const { events } = translateAll([
      contentChunk('m', {
        interaction: { interactionType: 'confirmation', content: 'Proceed?', options: ['Yes', 'No'] },
      }),
      finalChunk('m', 'stop', {
        deliverables: [{ filename: 'a.md', filepath: 'a.md', source: 'agent', isPrimary: true, createdAt: '' }],
      }),
    ]);
    expect(events.map(describeEvent)).toEqual([
      'artifact:interaction-m1',
      'artifact:file-a.md-m1',
      `${TaskState.TASK_STATE_INPUT_REQUIRED}:Proceed?`,
    ]);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.message?.metadata).toEqual({
      interactionType: 'confirmation',
    });
  });

  it('ends canceled on an unfinished stop of a cancelled turn and failed with the error text on an error', () => {
    const translator = new TurnEvents(turn, BASE);
    expect(
      translator.translate('1-1', finalChunk('m', 'stop', { status: 'unfinished' }), true).map(describeEvent),
    ).toEqual([`${TaskState.TASK_STATE_CANCELED}:the task was canceled`]);
    expect(translateAll([errorChunk('m', 'runtime_lost', 'the agent stopped')]).events.map(describeEvent)).toEqual([
      `${TaskState.TASK_STATE_FAILED}:the agent stopped`,
    ]);
  });

  it('ends completed with what it has on an unfinished stop without a cancel (step limit): result marked unfinished', () => {
    const { events } = translateAll([
      contentChunk('m', { content: 'Partial.' }),
      finalChunk('m', 'stop', { status: 'unfinished' }),
    ]);
    expect(events.map(describeEvent)).toEqual([
      `${TaskState.TASK_STATE_WORKING}:Partial.`,
      'artifact:result-m1',
      `${TaskState.TASK_STATE_COMPLETED}:Partial.`,
    ]);
    const result = events[1]?.payload;
    expect(result?.$case === 'artifactUpdate' && result.value.artifact?.metadata).toEqual({
      messageId: 'm1',
      unfinished: true,
    });
  });

  it('gives a file part application/octet-stream when the deliverable has no type', () => {
    const { events } = translateAll([
      finalChunk('m', 'stop', {
        deliverables: [{ filename: 'blob', filepath: 'out/blob', source: 'agent', isPrimary: true, createdAt: '' }],
      }),
    ]);
    const file = events[0]?.payload;
    expect(file?.$case === 'artifactUpdate' && file.value.artifact?.parts[0]?.mediaType).toBe(
      'application/octet-stream',
    );
  });

  it('folds the turn so far: submitted before anything, then working with the whole answer so far', () => {
    const translator = new TurnEvents(turn, BASE);
    expect(translator.status('t').state).toBe(TaskState.TASK_STATE_SUBMITTED);
    translator.translate('1-1', contentChunk('m', { content: 'one ' }));
    translator.translate('1-2', contentChunk('m', { content: 'two' }));
    const folded = translator.status('t');
    expect(folded.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(folded.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'one two' });
  });
});

describe('task view', () => {
  const at = new Date('2025-01-01T00:00:00Z');
  const records = (last: Partial<ConversationRecords['messages'][number]>): ConversationRecords => ({
    conversationId: 'c1',
    messages: [
      {
        id: 'u1',
        sender: 'User',
        text: 'Hi',
        processing: false,
        unfinished: false,
        cancelRequested: false,
        error: null,
        started: false,
        deliverables: null,
        updatedAt: at,
      },
      {
        id: 'm1',
        sender: 'AI',
        text: 'Hello.',
        processing: false,
        unfinished: false,
        cancelRequested: false,
        error: null,
        started: true,
        deliverables: null,
        updatedAt: at,
        ...last,
      },
    ],
    tasks: [],
  });

  it.each([
    [{}, TaskState.TASK_STATE_COMPLETED],
    [{ processing: true, started: false }, TaskState.TASK_STATE_SUBMITTED],
    [{ processing: true }, TaskState.TASK_STATE_WORKING],
    [{ unfinished: true, cancelRequested: true }, TaskState.TASK_STATE_CANCELED],
    [{ unfinished: true, error: { code: 'turn_timeout', message: 'too long' } }, TaskState.TASK_STATE_FAILED],
    [{ unfinished: true }, TaskState.TASK_STATE_COMPLETED],
  ])('reads the state of the last turn %j as %s', (last, state) => {
    expect(taskFromRecords(records(last), BASE).status?.state).toBe(state);
  });

  it('gives an unfinished turn without a cancel its partial answer as the result, marked unfinished', () => {
    const [result] = taskFromRecords(records({ unfinished: true }), BASE).artifacts;
    expect(result).toMatchObject({ artifactId: 'result-m1', metadata: { messageId: 'm1', unfinished: true } });
    expect(taskFromRecords(records({ unfinished: true, cancelRequested: true }), BASE).artifacts).toEqual([]);
  });

  it('keeps the N most recent messages, none for 0, and 100 when not given', () => {
    const items = Array.from({ length: 120 }, (_, index) => index);
    expect(historyWindow(items, 2)).toEqual([118, 119]);
    expect(historyWindow(items, 0)).toEqual([]);
    expect(historyWindow(items, undefined)).toHaveLength(100);
  });
});

describe('summaryOf and normaliseParams', () => {
  it('summarises by the first paragraph, at most 300 characters with an ellipsis', () => {
    expect(summaryOf('First.\n\nSecond.')).toBe('First.');
    const long = summaryOf('x'.repeat(400));
    expect(Array.from(long)).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
  });

  it('drops a historyLength that is not a non-negative integer and keeps v0.3 message/send blocking', () => {
    expect(normaliseParams('tasks/get', { id: 'x', historyLength: -1 })).toEqual({ id: 'x' });
    expect(normaliseParams('tasks/get', { id: 'x', historyLength: '3' })).toEqual({ id: 'x' });
    expect(normaliseParams('tasks/get', { id: 'x', historyLength: 2 })).toEqual({ id: 'x', historyLength: 2 });
    expect(normaliseParams('message/send', { configuration: { historyLength: 1.5 } })).toEqual({
      configuration: { blocking: true },
    });
  });

  it('reads a top-level historyLength of send and stream as the configuration one, which wins when both are given', () => {
    expect(normaliseParams('message/send', { historyLength: 0 })).toEqual({
      configuration: { historyLength: 0, blocking: true },
    });
    expect(normaliseParams('SendStreamingMessage', { historyLength: 2, configuration: { historyLength: 5 } })).toEqual({
      configuration: { historyLength: 5 },
    });
    expect(normaliseParams('SendMessage', { historyLength: 2, configuration: { historyLength: -1 } })).toEqual({
      configuration: { historyLength: 2 },
    });
    expect(normaliseParams('message/stream', { historyLength: 'all' })).toEqual({});
    expect(normaliseParams('message/stream', { historyLength: 1, configuration: 'x' })).toEqual({
      historyLength: 1,
      configuration: 'x',
    });
  });
});
