import { libraryAdminServiceFor, libraryEntities } from '@fed/agent';
import { useTestDatabase } from '@fed/persistence/testing';
import { FsBlobStore } from '@fed/storage';
import { ScriptedUpstream, minimalDocx, minimalPdf } from '@fed/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CHAT_MODEL, type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer } from './testing/model-answers';

// input_file parts end to end: files uploaded with POST /v1/files (and library files) are resolved at
// admission, stored on the user message, and their content reaches the scripted model through the runtime
// and llm-gateway, in agent mode and without it.

type ModelMessage = { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] };
type InputPart =
  { type: 'text'; text: string } | { type: 'input_file'; fileId: string } | { type: 'input_file'; filepath: string };

/** A PNG header of `width` x `height` pixels: enough for the upload to read its size. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const chunk = Buffer.concat([Buffer.from([0, 0, 0, 13]), Buffer.from('IHDR'), ihdr, Buffer.alloc(4)]);
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk, Buffer.from('0000000049454e44ae426082', 'hex')]);
}

describe('input_file parts: admission, the model receives the files, history shows them', () => {
  const database = useTestDatabase({ entities: libraryEntities });
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let blobDir: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    blobDir = await mkdtemp(path.join(tmpdir(), 'fed-input-files-'));
    stack = await bootChatStack(database.url, upstream.url, { env: { BLOB_DIR: blobDir } });
  });

  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
    await rm(blobDir, { recursive: true, force: true });
  });

  beforeEach(() => upstream.reset());

  const upload = async (
    token: string,
    filename: string,
    content: Buffer | string,
    type = 'application/octet-stream',
  ) => {
    const form = new FormData();
    form.append('filename', filename);
    form.append('file', new Blob([Buffer.from(content)], { type }), filename);
    const res = await fetch(`${stack.api}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { fileId: string }).fileId;
  };

  const chat = (token: string, content: InputPart[], extra: Record<string, unknown> = {}) =>
    fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: CHAT_MODEL,
        stream: true,
        reportMode: 'without',
        messages: [{ role: 'user', content }],
        ...extra,
      }),
    });

  /** Runs a turn to its end; the conversation id and the messages the model was sent. */
  const turn = async (token: string, content: InputPart[], extra: Record<string, unknown> = {}) => {
    upstream.enqueue(textAnswer(['Read it.']));
    const res = await chat(token, content, extra);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('"finishReason":"stop"');
    const [request] = await upstream.waitForRequests(1);
    return {
      conversationId: res.headers.get('x-conversation-id') as string,
      messages: (request?.json as { messages: ModelMessage[] }).messages,
    };
  };

  const textOf = (message: ModelMessage | undefined): string =>
    typeof message?.content === 'string'
      ? message.content
      : (message?.content ?? []).map((part) => part.text ?? '').join('');

  const history = async (token: string, conversationId: string) => {
    const res = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=asc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await res.json()) as { messages: { sender: string; files?: unknown[] }[] }).messages;
  };

  const conversationCount = async (token: string) => {
    const res = await fetch(`${stack.api}/v1/conversations`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { conversations: unknown[] }).conversations.length;
  };

  describe('admission', () => {
    it('answers 404 not_found for an unknown fileId before any turn: no conversation is created', async () => {
      const token = await stack.userToken();
      const fileId = crypto.randomUUID();
      const res = await chat(token, [
        { type: 'text', text: 'read' },
        { type: 'input_file', fileId },
      ]);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toContain(fileId);
      expect(await conversationCount(token)).toBe(0);
      expect(upstream.requests).toHaveLength(0);
    });

    it("answers 404 for another user's file", async () => {
      const owner = await stack.userToken();
      const fileId = await upload(owner, 'mine.txt', 'private');
      const other = await stack.userToken();
      const res = await chat(other, [{ type: 'input_file', fileId }]);
      expect(res.status).toBe(404);
      expect(await conversationCount(other)).toBe(0);
    });

    it('refuses 21 input_file parts naming one file with 400', async () => {
      const token = await stack.userToken();
      const fileId = await upload(token, 'one.txt', 'x');
      const res = await chat(
        token,
        Array.from({ length: 21 }, () => ({ type: 'input_file' as const, fileId })),
      );
      expect(res.status).toBe(400);
    });

    it('answers 404 for a library filepath that names no item', async () => {
      const token = await stack.userToken();
      const res = await chat(token, [{ type: 'input_file', filepath: 'guides/none.md' }]);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('guides/none.md');
      expect(await conversationCount(token)).toBe(0);
    });
  });

  it("gives the model an uploaded text file's content in the user message, and history shows files[]", async () => {
    const token = await stack.userToken();
    const fileId = await upload(token, 'notes.txt', 'The secret word is pineapple.', 'text/plain');
    const { conversationId, messages } = await turn(token, [
      { type: 'text', text: 'What is the secret word?' },
      { type: 'input_file', fileId },
    ]);
    expect(messages[0]?.role).toBe('system');
    expect(textOf(messages[0])).not.toContain('pineapple');
    const user = messages.at(-1);
    expect(user?.role).toBe('user');
    expect(textOf(user)).toContain('What is the secret word?');
    expect(textOf(user)).toContain(
      '<attachment name="notes.txt" type="text/plain">\nThe secret word is pineapple.\n</attachment>',
    );

    const stored = await history(token, conversationId);
    expect(stored[0]).toMatchObject({ sender: 'User', files: [{ fileId, mimeType: 'text/plain' }] });
    expect(stored[0]?.files?.[0]).toEqual({ fileId, mimeType: 'text/plain' });
    expect(stored[1]).not.toHaveProperty('files');
  });

  it('gives the file to the model with agentMode false too', async () => {
    const token = await stack.userToken();
    const fileId = await upload(token, 'table.csv', 'city,visits\nRome,3\n', 'text/csv');
    const { messages } = await turn(token, [{ type: 'input_file', fileId }], { agentMode: false });
    expect(textOf(messages.at(-1))).toContain('city,visits\nRome,3');
  });

  it('extracts the text of a PDF and of a DOCX', async () => {
    const token = await stack.userToken();
    const pdf = await upload(token, 'report.pdf', minimalPdf('Revenue grew twelve percent'), 'application/pdf');
    const docx = await upload(token, 'memo.docx', minimalDocx(['Meeting moved to Friday']));
    const { messages } = await turn(token, [
      { type: 'text', text: 'Summarize both' },
      { type: 'input_file', fileId: pdf },
      { type: 'input_file', fileId: docx },
    ]);
    const text = textOf(messages.at(-1));
    expect(text).toContain('<attachment name="report.pdf" type="application/pdf">\nRevenue grew twelve percent');
    expect(text).toContain('Meeting moved to Friday');
  });

  it('sends an image as an image part, and history carries its width and height', async () => {
    const token = await stack.userToken();
    const png = pngHeader(3, 2);
    const fileId = await upload(token, 'dot.png', png, 'image/png');
    const { conversationId, messages } = await turn(token, [
      { type: 'text', text: 'What is this?' },
      { type: 'input_file', fileId },
    ]);
    const user = messages.at(-1);
    expect(Array.isArray(user?.content)).toBe(true);
    expect(user?.content).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
    });
    const stored = await history(token, conversationId);
    expect(stored[0]?.files).toEqual([{ fileId, mimeType: 'image/png', width: 3, height: 2 }]);
  });

  it('gives a file once when several parts name it, and names earlier files in later turns', async () => {
    const token = await stack.userToken();
    const fileId = await upload(token, 'plan.md', '# Plan\nStep one', 'text/markdown');
    const first = await turn(token, [
      { type: 'input_file', fileId },
      { type: 'input_file', fileId },
    ]);
    expect(textOf(first.messages.at(-1)).split('Step one')).toHaveLength(2);
    expect((await history(token, first.conversationId))[0]?.files).toHaveLength(1);

    upstream.reset();
    upstream.enqueue(textAnswer(['Sure.']));
    const res = await fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: CHAT_MODEL,
        stream: true,
        reportMode: 'without',
        conversationId: first.conversationId,
        messages: [{ role: 'user', content: 'And then?' }],
      }),
    });
    await res.text();
    const [request] = await upstream.waitForRequests(1);
    const messages = (request?.json as { messages: ModelMessage[] }).messages;
    const earlier = messages.find((message) => message.role === 'user' && textOf(message).includes('plan.md'));
    expect(textOf(earlier)).toContain('Attached to this message: plan.md (text/markdown)');
    expect(textOf(earlier)).not.toContain('Step one');
  });

  it('reads a library file named by filepath like an upload; history shows the item id as fileId', async () => {
    const blobs = new FsBlobStore(blobDir);
    const item = await libraryAdminServiceFor(database.dataSource, blobs).addFile(
      'guides/house-style.md',
      { title: 'House style' },
      Readable.from(['Always write dates as YYYY-MM-DD.']),
    );
    const token = await stack.userToken();
    const { conversationId, messages } = await turn(token, [
      { type: 'text', text: 'Apply the style' },
      { type: 'input_file', filepath: 'guides/house-style.md' },
    ]);
    expect(textOf(messages.at(-1))).toContain(
      '<attachment name="house-style.md" type="text/markdown">\nAlways write dates as YYYY-MM-DD.\n</attachment>',
    );
    expect((await history(token, conversationId))[0]?.files).toEqual([{ fileId: item.id, mimeType: 'text/markdown' }]);
  });
});
