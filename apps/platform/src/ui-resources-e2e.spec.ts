import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { DataSource } from 'typeorm';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { runTurn } from './testing/chat-turn';
import { textAnswer, toolCall } from './testing/model-answers';

// First-party UI end to end: the scripted model calls show_map and ask_user with a card; the stream,
// history and the retrieval endpoint show what document 2 promises.

interface UiResource {
  type: string;
  origin: string;
  altText: string;
  size?: number;
  [field: string]: unknown;
}
interface Delta {
  content?: string;
  tasks?: { actionType: string; status: string; callId?: string; metadata?: Record<string, unknown> }[];
  interaction?: { interactionType: string; content: string; options?: string[]; uiResource?: UiResource };
  uiResource?: UiResource;
}
interface StreamChunk {
  choices: { delta: Delta; finishReason: string | null }[];
}
interface HistoryMessage {
  sender: string;
  text: string;
  tasks: { actionType: string; callId?: string; status: string; metadata?: Record<string, unknown> }[];
}

describe('first-party UI resources through chat-service, agent-runtime and llm-gateway', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let token: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url);
  });
  beforeEach(async () => {
    upstream.reset();
    token = await stack.userToken();
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const turn = (body: Record<string, unknown>) => runTurn<StreamChunk>(stack.api, token, body);

  async function history(conversationId: string): Promise<HistoryMessage[]> {
    const response = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=asc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await response.json()) as { messages: HistoryMessage[] }).messages;
  }

  const deltas = (chunks: StreamChunk[]) => chunks.map((chunk) => chunk.choices[0].delta);
  const textOf = (chunks: StreamChunk[]) =>
    deltas(chunks)
      .map((delta) => delta.content ?? '')
      .join('');

  it('streams a show_map call as delta.uiResource of kind map whose altText is the chunk content, kept in history', async () => {
    const places = [
      { id: 'p1', name: 'Alma', rating: 4.5 },
      { id: 'p2', name: 'Brew', price: '€€', distance: '300 m' },
      { id: 'p3', name: 'Cup', note: 'quiet' },
      { id: 'p4', name: 'Dot' },
    ];
    upstream.enqueue(
      toolCall('call_map', 'show_map', { title: 'Coffee', center_place_id: 'p2', places }),
      textAnswer(['Enjoy your coffee.']),
    );
    const { conversationId, chunks } = await turn({ messages: [{ role: 'user', content: 'Coffee nearby?' }] });

    const shown = deltas(chunks).filter((delta) => delta.uiResource);
    expect(shown).toHaveLength(1);
    const [delta] = shown;
    expect(delta.uiResource).toEqual({
      type: 'data',
      origin: 'first-party',
      altText: 'Map: Coffee: Alma, Brew and 2 more places',
      kind: 'map',
      data: { places, center_place_id: 'p2', title: 'Coffee' },
      generated_at: expect.any(String),
    });
    expect(delta.content).toBe(delta.uiResource?.altText);
    expect(delta.interaction).toBeUndefined();
    expect(chunks.at(-1)?.choices[0].finishReason).toBe('stop');

    const result = deltas(chunks)
      .flatMap((d) => d.tasks ?? [])
      .find((task) => task.callId === 'call_map' && task.actionType === 'tool_result');
    expect(result?.status).toBe('completed');
    expect(result?.metadata?.uiResource).toEqual(delta.uiResource);
    expect(result?.metadata?.interaction_type).toBeUndefined();

    const text = textOf(chunks);
    expect(text).toBe('Map: Coffee: Alma, Brew and 2 more places\n\nEnjoy your coffee.');
    const [, answer] = await history(conversationId);
    expect(answer.text).toBe(text);
    const stored = answer.tasks.find((task) => task.callId === 'call_map' && task.actionType === 'tool_result');
    expect(stored?.metadata?.uiResource).toEqual(delta.uiResource);
    expect(stored?.metadata).not.toHaveProperty('interaction_type');

    // A data resource travels inline: there is no HTML to retrieve.
    const retrieval = await fetch(`${stack.api}/v1/conversations/${conversationId}/ui-resources/call_map`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(retrieval.status).toBe(404);
    expect(((await retrieval.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('shows a map whose model-written text has NUL (dropped) or a lone surrogate (U+FFFD): the turn still ends with stop', async () => {
    upstream.enqueue(
      toolCall('call_nul_map', 'show_map', {
        title: 'Tea\u0000',
        places: [{ id: 'p\u0000', name: 'Leaf \ud800', note: 'calm\u0000' }],
      }),
      textAnswer(['Enjoy.']),
    );
    const { conversationId, chunks } = await turn({ messages: [{ role: 'user', content: 'Tea nearby?' }] });
    expect(chunks.at(-1)?.choices[0].finishReason).toBe('stop');
    const [delta] = deltas(chunks).filter((d) => d.uiResource);
    expect(delta?.uiResource).toMatchObject({
      kind: 'map',
      data: { title: 'Tea', places: [{ id: 'p', name: 'Leaf \ufffd', note: 'calm' }] },
    });
    expect(delta?.content).toBe(delta?.uiResource?.altText);
    const [, answer] = await history(conversationId);
    const stored = answer.tasks.find((task) => task.callId === 'call_nul_map' && task.actionType === 'tool_result');
    expect(stored?.metadata?.uiResource).toEqual(delta?.uiResource);
  });

  it('asks with a choice card in delta.interaction.uiResource (no options beside it), retrievable byte-exact', async () => {
    upstream.enqueue(
      toolCall('call_card', 'ask_user', {
        interactionType: 'choice',
        content: 'Which <city>?',
        options: ['Paris', 'Zürich <script>x()</script>'],
        presentation: 'card',
      }),
    );
    const { conversationId, chunks } = await turn({
      messages: [{ role: 'user', content: 'Plan a trip' }],
      outputFormat: 'markdown',
    });
    const asking = deltas(chunks).filter((delta) => delta.interaction);
    expect(asking).toHaveLength(1);
    const [delta] = asking;
    const interaction = delta.interaction!;
    expect(interaction.interactionType).toBe('choice');
    expect(interaction.content).toBe('Which <city>?');
    expect(interaction).not.toHaveProperty('options');
    const resource = interaction.uiResource!;
    expect(resource).toEqual({
      type: 'html',
      origin: 'first-party',
      altText: 'Which <city>?\n- Paris\n- Zürich <script>x()</script>',
      tool_call_id: 'call_card',
      uri: 'ui://federation/choice-card/call_card',
      tool_name: 'ask_user',
      server_name: 'federation',
      mime_type: 'text/html;profile=mcp-app',
      capabilities: { interaction_mode: 'closed' },
      size: expect.any(Number),
    });
    expect(delta.content).toBe(resource.altText);
    expect(deltas(chunks).some((d) => d.uiResource)).toBe(false);

    const retrieval = await fetch(`${stack.api}/v1/conversations/${conversationId}/ui-resources/call_card`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(retrieval.status).toBe(200);
    expect(retrieval.headers.get('cache-control')).toBe('no-store');
    const body = (await retrieval.json()) as Record<string, string>;
    expect(body).toMatchObject({ toolCallId: 'call_card', type: 'html', origin: 'first-party' });
    expect(body.mimeType).toBe(resource.mime_type);
    expect(Buffer.byteLength(body.html, 'utf8')).toBe(resource.size);
    const [row] = (await stack.service.nest
      .get(DataSource)
      .query(`SELECT "html" FROM "conversations"."ui_resources" WHERE "tool_call_id" = 'call_card'`)) as {
      html: string;
    }[];
    expect(body.html).toBe(row?.html);
    expect(body.html).toContain('Zürich &lt;script&gt;x()&lt;/script&gt;');
    expect(body.html).not.toContain('<script');

    const [, answer] = await history(conversationId);
    expect(answer.text).toBe(textOf(chunks));
    const task = answer.tasks.find((t) => t.callId === 'call_card' && t.actionType === 'tool_result');
    expect(task?.status).toBe('pending');
    expect(task?.metadata?.interaction_type).toBe('choice');
    const { size: _size, ...withoutSize } = resource;
    expect(task?.metadata?.uiResource).toEqual(withoutSize);
    expect(task?.metadata?.uiResource).not.toHaveProperty('html');

    // The answer is the next message, given to the model as the tool's result.
    upstream.enqueue(textAnswer(['Paris it is.']));
    const next = await turn({ conversationId, messages: [{ role: 'user', content: 'Paris' }] });
    expect(textOf(next.chunks)).toBe('Paris it is.');
    const requests = await upstream.waitForRequests(2);
    const sent = (requests[1]?.json as { messages: { role: string; content: unknown; tool_call_id?: string }[] })
      .messages;
    expect(sent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_card', content: 'Paris' });
    expect(JSON.stringify(sent)).not.toContain('<!doctype html>');
  });
});
