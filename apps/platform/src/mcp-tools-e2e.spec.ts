import { useTestDatabase } from '@fed/persistence/testing';
import { heartbeatsEvery } from '@fed/server';
import { ScriptedUpstream } from '@fed/testing';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { conversationsServiceFor } from '@fed/conversations';
import { DataSource } from 'typeorm';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { connectMcp, mcpUrl, structuredOf, toolErrorOf } from './testing/mcp-client';
import { textAnswer, toolCall } from './testing/model-answers';

// MCP's five tools end to end through the official SDK client: agent-protocols starts and follows the
// turns that agent-runtime runs against the scripted model, in one process.

interface ExecuteChatResult {
  text: string;
  conversationId: string;
  messageId: string;
  deliverables: { filename: string; filepath: string; size: number; isPrimary: boolean; mimeType?: string }[];
  executionSteps: { actionType: string; status: string; callId?: string; files: { filepath: string }[] }[];
  interaction?: { interactionType: string; content: string; options?: string[]; uiResource?: UiResource };
  uiResources: UiResource[];
  unfinished?: true;
  cancelled?: true;
}
interface UiResource {
  type: string;
  origin: string;
  altText: string;
  tool_call_id?: string;
  kind?: string;
  size?: number;
}
interface FileContent {
  conversationId: string;
  messageId: string;
  filepath: string;
  size: number;
  mimeType?: string;
  inline: boolean;
  encoding?: string;
  downloadUrl: string;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('MCP tools (execute_chat, get_file_content, get_ui_resource, cancel_chat, list_personas)', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let userId: string;
  let client: Client;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [AgentProtocolsModule],
      env: { CHAT_HEARTBEAT_SECONDS: '1' },
    });
  });
  beforeEach(async () => {
    upstream.reset();
    userId = randomUUID();
    client = await connectMcp(stack.api, await stack.token('mcp:all', userId));
  });
  afterEach(async () => {
    await client?.close();
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const executeChat = async (args: Record<string, unknown>) =>
    structuredOf<ExecuteChatResult>(await call(client, 'execute_chat', { ...args }));

  /** The user's uploads, as the files API lists them. */
  const uploadsOf = async (owner: string) => {
    const response = await fetch(`${stack.api}/v1/files?limit=100`, {
      headers: { authorization: `Bearer ${await stack.token('chat:file', owner)}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { files: { filename: string; bytes: number }[] }).files;
  };

  it('lists the five tools, each with an input schema and an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'cancel_chat',
      'execute_chat',
      'get_file_content',
      'get_ui_resource',
      'list_personas',
    ]);
    for (const tool of tools) {
      expect(tool.description).toEqual(expect.any(String));
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const executeChatTool = tools.find((tool) => tool.name === 'execute_chat');
    expect(executeChatTool?.inputSchema.required).toEqual(['prompt']);
    expect(Object.keys(executeChatTool?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['prompt', 'conversationId', 'files']),
    );
  });

  it('answers a plain turn with the text, the conversation and empty lists, and continues it by conversationId', async () => {
    upstream.enqueue(textAnswer(['Hello', ' there']));
    const first = await executeChat({ prompt: 'Say hello' });
    expect(first).toEqual({
      text: 'Hello there',
      conversationId: expect.any(String),
      messageId: expect.any(String),
      deliverables: [],
      executionSteps: [],
      uiResources: [],
    });
    upstream.enqueue(textAnswer(['Again']));
    const second = await executeChat({ prompt: 'Once more', conversationId: first.conversationId.toUpperCase() });
    expect(second).toMatchObject({ text: 'Again', conversationId: first.conversationId });
    const [, sent] = await upstream.waitForRequests(2);
    const messages = (sent?.json as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages.some((message) => message.role === 'assistant' && message.content === 'Hello there')).toBe(true);
  });

  it('returns write_file deliverables with their size and steps with files, and get_file_content gives them inline', async () => {
    upstream.enqueue(
      toolCall('call_report', 'write_file', { filepath: 'out/report.md', content: '# Report\nAll good.' }),
      toolCall('call_blob', 'write_file', {
        filepath: 'data.bin',
        content: 'raw',
        mimeType: 'application/octet-stream',
      }),
      textAnswer(['Both written.']),
    );
    const result = await executeChat({ prompt: 'Write the report' });
    expect(result.text).toContain('Both written.');
    expect(result.deliverables.map((file) => [file.filepath, file.size, file.isPrimary])).toEqual([
      ['out/report.md', 18, true],
      ['data.bin', 3, false],
    ]);
    const written = result.executionSteps.filter((step) => step.actionType === 'tool_result');
    expect(written.map((step) => step.files.map((file) => file.filepath))).toEqual([['out/report.md'], ['data.bin']]);
    expect(result.executionSteps.every((step) => Array.isArray(step.files))).toBe(true);

    const report = await call(client, 'get_file_content', { filepath: 'out/report.md' });
    expect(structuredOf<FileContent>(report)).toMatchObject({
      conversationId: result.conversationId,
      messageId: result.messageId,
      filepath: 'out/report.md',
      size: 18,
      inline: true,
      encoding: 'utf-8',
    });
    expect(report.content[1]).toEqual({ type: 'text', text: '# Report\nAll good.' });

    const blob = await call(client, 'get_file_content', {
      filepath: 'data.bin',
      conversationId: result.conversationId,
      messageId: result.messageId,
    });
    const blobContent = structuredOf<FileContent>(blob);
    expect(blobContent).toMatchObject({ inline: true, encoding: 'base64', mimeType: 'application/octet-stream' });
    expect(blob.content[1]).toEqual({
      type: 'resource',
      resource: {
        uri: blobContent.downloadUrl,
        mimeType: 'application/octet-stream',
        blob: Buffer.from('raw').toString('base64'),
      },
    });
  });

  it('picks the newest deliverable of a path without ids, and another turn or user finds nothing', async () => {
    upstream.enqueue(toolCall('call_a', 'write_file', { filepath: 'notes.txt', content: 'old' }), textAnswer(['1']));
    const older = await executeChat({ prompt: 'first' });
    upstream.enqueue(toolCall('call_b', 'write_file', { filepath: 'notes.txt', content: 'new!' }), textAnswer(['2']));
    const newer = await executeChat({ prompt: 'second' });

    const newest = await call(client, 'get_file_content', { filepath: 'notes.txt' });
    expect(structuredOf<FileContent>(newest).messageId).toBe(newer.messageId);
    expect(newest.content[1]).toEqual({ type: 'text', text: 'new!' });
    const pinned = await call(client, 'get_file_content', { filepath: 'notes.txt', messageId: older.messageId });
    expect(pinned.content[1]).toEqual({ type: 'text', text: 'old' });

    expect(toolErrorOf(await call(client, 'get_file_content', { filepath: 'missing.txt' }))).toMatchObject({
      code: 'NOT_FOUND',
      retryable: false,
    });
    expect(toolErrorOf(await call(client, 'get_file_content', { filepath: '../etc/passwd' })).code).toBe(
      'INVALID_PARAMS',
    );
    const stranger = await connectMcp(stack.api, await stack.token('mcp:all'));
    try {
      for (const args of [{ filepath: 'notes.txt' }, { filepath: 'notes.txt', conversationId: newer.conversationId }]) {
        expect(toolErrorOf(await call(stranger, 'get_file_content', args)).code).toBe('NOT_FOUND');
      }
    } finally {
      await stranger.close();
    }
  });

  it('returns display UI in uiResources (a map is data: get_ui_resource says NOT_FOUND)', async () => {
    const places = [
      { id: 'p1', name: 'Alma' },
      { id: 'p2', name: 'Brew' },
    ];
    upstream.enqueue(toolCall('call_map', 'show_map', { title: 'Coffee', places }), textAnswer(['Enjoy.']));
    const result = await executeChat({ prompt: 'Coffee nearby?' });
    expect(result.uiResources).toEqual([
      expect.objectContaining({
        type: 'data',
        origin: 'first-party',
        kind: 'map',
        altText: 'Map: Coffee: Alma and Brew',
      }),
    ]);
    expect(result.interaction).toBeUndefined();
    const data = await call(client, 'get_ui_resource', {
      conversationId: result.conversationId,
      toolCallId: 'call_map',
    });
    expect(toolErrorOf(data)).toMatchObject({ code: 'NOT_FOUND', retryable: false });
  });

  it('returns an ask_user card as interaction.uiResource, serves its HTML, and a reply with conversationId completes', async () => {
    upstream.enqueue(
      toolCall('call_card', 'ask_user', {
        interactionType: 'choice',
        content: 'Which city?',
        options: ['Paris', 'Rome'],
        presentation: 'card',
      }),
    );
    const asking = await executeChat({ prompt: 'Plan a trip' });
    expect(asking.interaction).toMatchObject({
      interactionType: 'choice',
      content: 'Which city?',
      uiResource: { type: 'html', origin: 'first-party', tool_call_id: 'call_card', size: expect.any(Number) },
    });
    expect(asking.uiResources).toEqual([]);
    expect(asking.executionSteps.some((step) => step.status === 'pending')).toBe(true);

    const html = await call(client, 'get_ui_resource', {
      conversationId: asking.conversationId,
      toolCallId: 'call_card',
    });
    expect(html.isError).toBeFalsy();
    expect(html.content).toHaveLength(1);
    const [block] = html.content;
    expect(block?.type).toBe('text');
    const text = block?.type === 'text' ? block.text : '';
    expect(Buffer.byteLength(text, 'utf8')).toBe(asking.interaction?.uiResource?.size);
    expect(html.structuredContent).toMatchObject({ toolCallId: 'call_card', type: 'html', html: text });

    upstream.enqueue(textAnswer(['Rome it is.']));
    const answered = await executeChat({ prompt: 'Rome', conversationId: asking.conversationId });
    expect(answered).toMatchObject({ text: 'Rome it is.', conversationId: asking.conversationId });
    expect(answered.interaction).toBeUndefined();
    // Earlier turns' UI stays retrievable.
    const again = await call(client, 'get_ui_resource', {
      conversationId: asking.conversationId,
      toolCallId: 'call_card',
    });
    expect(again.isError).toBeFalsy();
  });

  it('refuses malformed get_ui_resource arguments with INVALID_PARAMS and another user’s conversation with NOT_FOUND', async () => {
    upstream.enqueue(
      toolCall('call_form', 'ask_user', { interactionType: 'question', content: 'Name?', presentation: 'form' }),
    );
    const asking = await executeChat({ prompt: 'Register me' });
    const bad = await call(client, 'get_ui_resource', { conversationId: 'not-a-uuid', toolCallId: 'call_form' });
    expect(toolErrorOf(bad)).toMatchObject({ code: 'INVALID_PARAMS', retryable: false });
    const badId = await call(client, 'get_ui_resource', { conversationId: asking.conversationId, toolCallId: 'a/b' });
    expect(toolErrorOf(badId).code).toBe('INVALID_PARAMS');

    const stranger = await connectMcp(stack.api, await stack.token('mcp:all'));
    try {
      const args = { conversationId: asking.conversationId, toolCallId: 'call_form' };
      expect(toolErrorOf(await call(stranger, 'get_ui_resource', args))).toMatchObject({ code: 'NOT_FOUND' });
      expect(toolErrorOf(await call(stranger, 'cancel_chat', { conversationId: asking.conversationId })).code).toBe(
        'NOT_FOUND',
      );
      upstream.reset();
      const continued = await call(stranger, 'execute_chat', { prompt: 'hi', conversationId: asking.conversationId });
      expect(toolErrorOf(continued)).toMatchObject({ code: 'NOT_FOUND', reason: 'conversation_not_found' });
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await stranger.close();
    }
  });

  it('cancel_chat stops a long turn: the waiting execute_chat returns what it had, marked cancelled', async () => {
    upstream.enqueue(textAnswer(['ok']));
    const { conversationId } = await executeChat({ prompt: 'start' });
    upstream.reset();
    upstream.enqueue(textAnswer(['Partial', ' answer', ' never', ' finished'], 3000));
    const running = call(client, 'execute_chat', { prompt: 'Take your time', conversationId });
    await upstream.waitForRequests(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelled = await call(client, 'cancel_chat', { conversationId });
    expect(structuredOf(cancelled)).toEqual({ conversationId, cancelled: true });
    const result = structuredOf<ExecuteChatResult>(await running);
    expect(result).toMatchObject({ conversationId, unfinished: true, cancelled: true });
    expect(result.text.startsWith('Partial')).toBe(true);
    expect(result.text).not.toContain('finished');
  });

  it('sends progress while a turn runs, so a client resetting its timeout on progress keeps waiting', async () => {
    upstream.enqueue(textAnswer(['slow', ' but', ' done'], 1500));
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'execute_chat', arguments: { prompt: 'Slowly' } }, undefined, {
      // Shorter than the turn (about 3 s): only the progress every second keeps the call alive.
      timeout: 2500,
      resetTimeoutOnProgress: true,
      onprogress: (update) => progress.push(update),
    });
    expect(structuredOf<ExecuteChatResult>(result as CallToolResult).text).toBe('slow but done');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
    // The progress and the stream's keep-alives were the heartbeat table's; both entries go with the stream.
    for (let waited = 0; heartbeatsEvery(1000).size > 0 && waited < 2000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(heartbeatsEvery(1000).size).toBe(0);
  });

  it('sends a quiet execute_chat stream the transport keep-alive comment every heartbeat', async () => {
    upstream.enqueue(textAnswer(['quiet', ' then done'], 1500));
    const response = await fetch(mcpUrl(stack.api), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await stack.token('mcp:all', userId)}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'execute_chat', arguments: { prompt: 'Quietly' } },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text).toMatch(/^(: keepalive\n\n)+event: message\n/);
    expect(text).toContain('quiet then done');
  });

  it('answers a failed turn with a TURN_FAILED tool error naming the reason', async () => {
    upstream.enqueue({ kind: 'status', status: 400, path: '/v1/chat/completions' });
    const failed = toolErrorOf(await call(client, 'execute_chat', { prompt: 'This will fail' }));
    expect(failed).toMatchObject({
      code: 'TURN_FAILED',
      reason: 'agent_failed',
      retryable: true,
      conversationId: expect.any(String),
    });
  });

  it('stores inline files as the caller’s uploads and gives them to the agent', async () => {
    upstream.enqueue(textAnswer(['Read it.']));
    const result = await executeChat({
      prompt: 'Summarize the file',
      files: [{ filename: 'notes.txt', data: Buffer.from('The secret word is teal.').toString('base64') }],
    });
    expect(result.text).toBe('Read it.');
    const [sent] = await upstream.waitForRequests(1);
    expect(JSON.stringify(sent?.json)).toContain('The secret word is teal.');
  });

  it('takes a 6 MB file (base64 over 8 MB) and gives it to the agent', async () => {
    upstream.enqueue(textAnswer(['Read the big one.']));
    const bytes = Buffer.alloc(6 * 1024 * 1024, 'filler line\n');
    bytes.write('The big file starts with amber.\n');
    const result = await executeChat({
      prompt: 'Summarize the big file',
      files: [{ filename: 'big.txt', data: bytes.toString('base64') }],
    });
    expect(result.text).toBe('Read the big one.');
    const [sent] = await upstream.waitForRequests(1);
    expect(JSON.stringify(sent?.json)).toContain('The big file starts with amber.');
    expect((await uploadsOf(userId)).map((file) => [file.filename, file.bytes])).toEqual([['big.txt', bytes.length]]);
  });

  it('leaves no upload behind when it refuses a send with files (unknown, another user’s, archived or running conversation; unknown persona)', async () => {
    const files = [{ filename: 'kept.txt', data: Buffer.from('must not stay').toString('base64') }];
    upstream.enqueue(textAnswer(['mine']));
    const { conversationId: archivedId } = await executeChat({ prompt: 'to archive' });
    await conversationsServiceFor(stack.service.nest.get(DataSource)).archive(archivedId);
    const stranger = await connectMcp(stack.api, await stack.token('mcp:all'));
    let othersId: string;
    try {
      upstream.enqueue(textAnswer(['theirs']));
      othersId = structuredOf<ExecuteChatResult>(
        await call(stranger, 'execute_chat', { prompt: 'mine' }),
      ).conversationId;
    } finally {
      await stranger.close();
    }
    upstream.enqueue(textAnswer(['ok']));
    const { conversationId: busyId } = await executeChat({ prompt: 'start' });
    upstream.reset();
    upstream.enqueue(textAnswer(['Long', ' running', ' answer'], 1000));
    const running = call(client, 'execute_chat', { prompt: 'Take your time', conversationId: busyId });
    await upstream.waitForRequests(1);

    for (const [args, code, reason] of [
      [{ conversationId: randomUUID() }, 'NOT_FOUND', 'conversation_not_found'],
      [{ conversationId: othersId }, 'NOT_FOUND', 'conversation_not_found'],
      [{ conversationId: archivedId }, 'INVALID_PARAMS', 'conversation_archived'],
      [{ conversationId: busyId }, 'CONFLICT', 'conversation_processing'],
      [{ personaKey: 'no-such-persona' }, 'INVALID_PARAMS', undefined],
    ] as const) {
      const refused = toolErrorOf(await call(client, 'execute_chat', { prompt: 'with a file', files, ...args }));
      expect(refused).toMatchObject({ code, ...(reason ? { reason } : {}) });
    }
    expect(await uploadsOf(userId)).toEqual([]);
    expect(structuredOf<ExecuteChatResult>(await running).text).toBe('Long running answer');
  });

  it('refuses bad execute_chat arguments with INVALID_PARAMS before any turn starts', async () => {
    for (const args of [
      { prompt: 'lone \ud800 surrogate' },
      { prompt: 'nul \u0000' },
      { prompt: '   ' },
      { prompt: 'x', conversationId: 'nope' },
      { prompt: 'x', files: [{ filename: 'a.txt', data: 'not base64!' }] },
      { prompt: 'x', files: [{ filename: 'a.txt', data: 'YWJj=' }] },
      { prompt: 'x', files: [{ filename: 'a.txt', data: 'YQ=b' }] },
      { prompt: 'x', files: [{ filename: 'a/b.txt', data: 'YQ==' }] },
      { prompt: 'x', personaKey: 'no-such-persona' },
    ]) {
      expect(toolErrorOf(await call(client, 'execute_chat', args))).toMatchObject({ code: 'INVALID_PARAMS' });
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('lists the personas the chat API lists, with key, name and description', async () => {
    const dataSource = stack.service.nest.get(DataSource);
    for (const [key, name] of [
      ['mcp-zeta', 'Zeta'],
      ['mcp-alpha', 'Alpha'],
    ]) {
      await dataSource.query(
        `INSERT INTO "agent"."personas" ("key", "name", "description", "instructions", "created_at", "updated_at")
         VALUES ($1, $2, 'for tests', 'secret', now(), now()) ON CONFLICT DO NOTHING`,
        [key, name],
      );
    }
    const { personas } = structuredOf<{ personas: { key: string; name: string; description: string }[] }>(
      await call(client, 'list_personas'),
    );
    const listed = await fetch(`${stack.api}/v1/personas?limit=100`, {
      headers: { authorization: `Bearer ${await stack.userToken(userId)}` },
    });
    const chatApi = ((await listed.json()) as { personas: { personaKey: string; name: string; description: string }[] })
      .personas;
    expect(personas).toEqual(
      chatApi.map(({ personaKey, name, description }) => ({ key: personaKey, name, description })),
    );
    expect(personas).toEqual(expect.arrayContaining([{ key: 'mcp-alpha', name: 'Alpha', description: 'for tests' }]));
    expect(JSON.stringify(personas)).not.toContain('secret');
  });
});

describe('MCP get_file_content over the inline limit (MCP_FILE_SIZE_LIMIT_MB)', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [AgentProtocolsModule],
      env: { MCP_FILE_SIZE_LIMIT_MB: '0.00001' },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  it('gives a download link instead of the content, which downloads with the same mcp:all token', async () => {
    const token = await stack.token('mcp:all');
    const client = await connectMcp(stack.api, token);
    try {
      const content = 'More than ten bytes of text.';
      upstream.enqueue(toolCall('call_big', 'write_file', { filepath: 'big.txt', content }), textAnswer(['Done.']));
      const result = structuredOf<ExecuteChatResult>(
        (await client.callTool({ name: 'execute_chat', arguments: { prompt: 'Write it' } })) as CallToolResult,
      );
      const file = (await client.callTool({
        name: 'get_file_content',
        arguments: { filepath: 'big.txt' },
      })) as CallToolResult;
      expect(file.content).toHaveLength(1);
      const link = structuredOf<FileContent>(file);
      expect(link).toMatchObject({ inline: false, size: Buffer.byteLength(content), messageId: result.messageId });
      expect(link.encoding).toBeUndefined();
      const url = new URL(link.downloadUrl);
      expect(url.pathname).toBe(`/api/v1/conversations/${result.conversationId}/deliverables/content`);
      expect(url.searchParams.get('filepath')).toBe('big.txt');
      const download = await fetch(`${stack.service.url}${url.pathname}${url.search}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(content);
    } finally {
      await client.close();
    }
  });
});
