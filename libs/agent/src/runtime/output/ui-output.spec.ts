import { MemoryRunStream } from '@fed/bus';
import type { ChatCompletionChunk, DataUiResource, HtmlUiResource } from '@fed/contracts';
import { ChunkWriter } from './chunk-writer';
import { TurnOutput } from './turn-output';
import { VIEW_DATA_MAX_CHARS, historyUiResource, prepareUi, viewData } from './ui-resources';

const task = {
  messageId: 'm',
  conversationId: 'c',
  actionType: 'tool_result',
  status: 'pending' as const,
  timestamp: 0,
  createdAt: '1970-01-01T00:00:00.000Z',
  updatedAt: '1970-01-01T00:00:00.000Z',
};

const map: DataUiResource = {
  type: 'data',
  origin: 'first-party',
  altText: 'Map: *Cafés*: A and B',
  kind: 'map',
  data: { places: [] },
};

const card: HtmlUiResource = {
  type: 'html',
  origin: 'first-party',
  altText: 'Which?\n- A\n- B',
  tool_call_id: 'call_1',
  uri: 'ui://federation/choice-card/call_1',
  tool_name: 'ask_user',
  server_name: 'federation',
  mime_type: 'text/html;profile=mcp-app',
  size: 1,
};

describe('UI resources in the turn output', () => {
  let stream: MemoryRunStream;
  let writer: ChunkWriter;
  /** The offset of the role chunk the chat service opened the stream with (the writer only appends to it). */
  let opened: string;

  beforeEach(async () => {
    stream = new MemoryRunStream();
    opened = await stream.append('run', '{"role":"assistant"}');
    writer = new ChunkWriter(stream, 'run', {
      model: 'federation-agent',
      coalesceMs: 0,
      onEnded: () => undefined,
      onFailed: () => undefined,
    });
  });
  afterEach(() => stream.close());

  async function written(): Promise<ChatCompletionChunk[]> {
    await writer.drain();
    const read = await stream.read('run', opened, { count: 1000 });
    return read.entries.map((entry) => JSON.parse(entry.data) as ChatCompletionChunk);
  }

  it('sends the alternative text as the content of the uiResource chunk, after a paragraph break of its own', async () => {
    const output = new TurnOutput(writer, 'markdown');
    output.write('Here you go.');
    output.uiResource(map.altText, map);
    output.startParagraph();
    output.write('Enjoy.');
    const deltas = (await written()).map((chunk) => chunk.choices[0].delta);
    expect(deltas).toEqual([
      { content: 'Here you go.' },
      { content: '\n\n' },
      { content: map.altText, uiResource: map },
      { content: '\n\nEnjoy.' },
    ]);
    expect(output.text).toBe(deltas.map((delta) => delta.content).join(''));
  });

  it('keeps the alternative text as it is in plain output (stream text equals stored text)', async () => {
    const output = new TurnOutput(writer, 'plain');
    output.write('**Bold** start');
    output.uiResource(map.altText, map);
    const deltas = (await written()).map((chunk) => chunk.choices[0].delta);
    expect(deltas.find((delta) => delta.uiResource)?.content).toBe(map.altText);
    expect(output.text).toBe(deltas.map((delta) => delta.content ?? '').join(''));
    expect(output.text).toBe(`Bold start\n\n${map.altText}`);
  });

  it('puts an input UI in the interaction chunk with its alternative text as content', async () => {
    const output = new TurnOutput(writer, 'markdown');
    output.interaction(task, { interactionType: 'choice', content: 'Which?', uiResource: card });
    const [chunk] = await written();
    expect(chunk.choices[0].delta).toEqual({
      content: card.altText,
      tasks: [task],
      interaction: { interactionType: 'choice', content: 'Which?', uiResource: card },
    });
    expect(output.text).toBe(card.altText);
  });

  it('shows only the alternative text of a resource that cannot be served', async () => {
    const output = new TurnOutput(writer, 'markdown');
    output.uiResource('An external tool server returned a UI resource.');
    const deltas = (await written()).map((chunk) => chunk.choices[0].delta);
    expect(deltas).toEqual([{ content: 'An external tool server returned a UI resource.' }]);
  });
});

describe('preparing a UI resource for the stream', () => {
  const call = { id: 'call_1', toolName: 'ask_user' };

  it('sets size to the UTF-8 bytes of the HTML, whatever the tool declared', () => {
    const prepared = prepareUi({ resource: card, html: '<p>ü</p>' }, call, 'markdown');
    expect(prepared.servable && prepared.resource).toMatchObject({ size: 9 });
  });

  it('cannot serve HTML under a call id that is not a valid toolCallId, or over 512 KB', () => {
    expect(prepareUi({ resource: card, html: '<p/>' }, { ...call, id: 'call.1' }, 'markdown')).toEqual({
      servable: false,
      altText: card.altText,
    });
    expect(prepareUi({ resource: card, html: 'x'.repeat(524_289) }, call, 'markdown').servable).toBe(false);
  });

  it('announces an external resource whose HTML was not read without a size, to be read on retrieval', () => {
    const prepared = prepareUi({ resource: { ...card, origin: 'external' } }, call, 'markdown');
    expect(prepared.servable && prepared.resource).not.toHaveProperty('size');
    expect(prepared.servable && prepared.record).toMatchObject({ origin: 'external', toolCallId: 'call_1' });
    expect(prepared.servable && prepared.record).not.toHaveProperty('html');
  });

  it('serves only the alternative text of a resource the tool marks unservable (refused in form)', () => {
    expect(prepareUi({ resource: { ...card, origin: 'external' }, unservable: true }, call, 'markdown')).toEqual({
      servable: false,
      altText: card.altText,
    });
  });

  it('strips Markdown from the alternative text in plain output, so altText and content stay equal', () => {
    const prepared = prepareUi({ resource: map }, { id: 'call_2', toolName: 'show_map' }, 'plain');
    expect(prepared.servable && prepared.resource.altText).toBe('Map: Cafés: A and B');
  });

  it('keeps neither HTML nor size in the history view', () => {
    expect(historyUiResource(card)).not.toHaveProperty('size');
    expect(historyUiResource(map)).toEqual(map);
  });
});

describe("an MCP App's tool input and result in its task", () => {
  it('keeps both, with their text made storable (no NUL, no lone surrogate)', () => {
    const result = { content: [{ type: 'text', text: 'Sunny\u0000 \ud800' }], structuredContent: { t: 21 } };
    expect(viewData({ city: 'Lyon\u0000' }, result)).toEqual({
      toolInput: { city: 'Lyon' },
      toolResult: { content: [{ type: 'text', text: 'Sunny \ufffd' }], structuredContent: { t: 21 } },
    });
  });

  it('leaves out either when it is larger than the bound, and the result when there is none', () => {
    const large = 'x'.repeat(VIEW_DATA_MAX_CHARS);
    expect(viewData({ text: large }, { content: [] })).toEqual({ toolResult: { content: [] } });
    expect(viewData({}, { content: [{ type: 'text', text: large }] })).toEqual({ toolInput: {} });
    expect(viewData({ a: 1 }, undefined)).toEqual({ toolInput: { a: 1 } });
  });
});
