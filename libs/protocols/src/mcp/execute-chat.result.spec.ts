import { type Task, contentChunk, errorChunk, finalChunk, roleChunk } from '@fed/contracts';
import { TurnCollector } from './execute-chat.result';

const task = (fields: Partial<Task>): Task => ({
  messageId: 'm',
  conversationId: 'c',
  actionType: 'tool_result',
  status: 'completed',
  timestamp: 0,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  ...fields,
});

describe('the execute_chat result read from a turn’s chunks', () => {
  it('joins the text, keeps every task with files[], display UI in order, and deliverables with size', () => {
    const collector = new TurnCollector('c', 'm');
    const map = { type: 'data', origin: 'first-party', altText: 'Map', kind: 'map', data: {} } as const;
    for (const chunk of [
      roleChunk('model', 'c', 'm'),
      contentChunk('model', { content: 'Hello ' }),
      contentChunk('model', { tasks: [task({ actionType: 'tool_start', status: 'in_progress', title: 'Writing' })] }),
      contentChunk('model', {
        tasks: [task({ files: [{ filename: 'a.md', filepath: 'a.md', size: 3 }] })],
      }),
      contentChunk('model', { content: 'Map', uiResource: map }),
      finalChunk('model', 'stop', {
        deliverables: [{ filename: 'a.md', filepath: 'a.md', source: 'agent', isPrimary: true, createdAt: 'now' }],
      }),
    ]) {
      collector.add(chunk);
    }
    expect(collector.currentStep).toBe('tool_result');
    const outcome = collector.outcome();
    expect(outcome).toEqual({
      kind: 'answered',
      result: {
        text: 'Hello Map',
        conversationId: 'c',
        messageId: 'm',
        deliverables: [
          { filename: 'a.md', filepath: 'a.md', source: 'agent', isPrimary: true, createdAt: 'now', size: 0 },
        ],
        executionSteps: [
          expect.objectContaining({ actionType: 'tool_start', files: [] }),
          expect.objectContaining({
            actionType: 'tool_result',
            files: [{ filename: 'a.md', filepath: 'a.md', size: 3 }],
          }),
        ],
        uiResources: [map],
      },
    });
  });

  it('keeps the interaction a turn ended on, and marks a stop with status unfinished', () => {
    const collector = new TurnCollector('c', 'm');
    collector.add(contentChunk('model', { interaction: { interactionType: 'question', content: 'Name?' } }));
    collector.add(finalChunk('model', 'stop', { status: 'unfinished' }));
    expect(collector.outcome()).toMatchObject({
      kind: 'answered',
      result: { interaction: { interactionType: 'question', content: 'Name?' }, unfinished: true, uiResources: [] },
    });
  });

  it('reports a failed turn with its error code, and a log without a final chunk as lost', () => {
    const failed = new TurnCollector('c', 'm');
    failed.add(errorChunk('model', 'model_unavailable', 'the model could not be reached'));
    expect(failed.outcome()).toEqual({
      kind: 'failed',
      code: 'model_unavailable',
      message: 'the model could not be reached',
    });
    const lost = new TurnCollector('c', 'm');
    lost.add(contentChunk('model', { content: 'half' }));
    expect(lost.outcome()).toEqual({ kind: 'lost' });
  });
});
