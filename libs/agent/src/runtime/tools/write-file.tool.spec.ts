import type { Deliverable } from '@fed/contracts';
import { ToolBox } from './tool-box';
import type { DeliverableInput, ToolContext } from './agent-tool';
import { WriteFileTool } from './write-file.tool';

function context(saved: DeliverableInput[]): ToolContext {
  return {
    tenantId: null,
    userId: 'user-1',
    conversationId: 'c',
    messageId: 'm',
    privateMode: false,
    signal: new AbortController().signal,
    callId: 'call_1',
    deliverables: {
      save: async (file): Promise<Deliverable> => {
        saved.push(file);
        const size = Buffer.byteLength(file.content);
        return {
          filename: file.filepath.split('/').at(-1) as string,
          filepath: file.filepath,
          source: 'agent',
          isPrimary: true,
          createdAt: new Date(0).toISOString(),
          mimeType: 'text/csv',
          ...(size > 0 ? { size } : {}),
        };
      },
    },
  };
}

describe('the write_file tool', () => {
  const tool = new WriteFileTool();
  const toolbox = new ToolBox([tool]);
  const call = (args: Record<string, unknown>) =>
    toolbox.prepare({
      id: 'call_1',
      type: 'function',
      function: { name: 'write_file', arguments: JSON.stringify(args) },
    });

  it('saves the file and gives its files[] to the result task and a short confirmation to the model', async () => {
    const saved: DeliverableInput[] = [];
    const outcome = await tool.run({ filepath: 'data/q3.csv', content: 'a,b\n1,2\n', primary: true }, context(saved));
    expect(saved).toEqual([{ filepath: 'data/q3.csv', content: 'a,b\n1,2\n', primary: true }]);
    expect(outcome).toMatchObject({
      status: 'completed',
      files: [{ filename: 'q3.csv', size: 8, filepath: 'data/q3.csv', mimeType: 'text/csv' }],
    });
    expect(outcome.status === 'completed' && outcome.content).toMatch(/^Saved data\/q3\.csv \(8 bytes, text\/csv\)/);
  });

  it.each([['/abs.txt'], ['../up.txt'], ['a/../b.txt'], ['dir/'], ['-x.txt'], ['a\\b.txt']])(
    'refuses the filepath %j before anything runs',
    (filepath) => {
      expect(call({ filepath, content: 'x' }).ok).toBe(false);
    },
  );

  it('fails without saving when the path contains ".." or the content is over 5 MB', async () => {
    const saved: DeliverableInput[] = [];
    expect(await tool.run({ filepath: 'a..b.txt', content: 'x' }, context(saved))).toMatchObject({ status: 'failed' });
    const big = await tool.run({ filepath: 'big.txt', content: 'é'.repeat(2.5 * 1024 * 1024 + 1) }, context(saved));
    expect(big).toMatchObject({ status: 'failed', error: expect.stringMatching(/larger than/) });
    expect(saved).toEqual([]);
  });

  it('accepts a relative path with spaces, dots and folders', () => {
    expect(call({ filepath: 'Q3 report/final v2.md', content: 'x', mimeType: 'text/markdown' }).ok).toBe(true);
  });
});
