import { type ChatCompletionChunk } from '@fed/contracts';

/** One item of a server-sent-event stream as a raw reader sees it. */
export type SseItem = { comment: string } | { id?: string; data: string };

/** Reads an event stream item by item, comments included, for tests of the exact order of items. */
export class SseReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly items: SseItem[] = [];
  done = false;

  constructor(response: Response) {
    if (!response.body) throw new Error('response has no body');
    this.reader = response.body.getReader();
  }

  async next(): Promise<SseItem | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const item = parseBlock(block);
        this.items.push(item);
        return item;
      }
      if (this.done) return undefined;
      const { value, done } = await this.reader.read();
      if (done) this.done = true;
      else this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  async rest(): Promise<SseItem[]> {
    const seen: SseItem[] = [];
    for (let item = await this.next(); item; item = await this.next()) seen.push(item);
    return seen;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseItem {
  if (block.startsWith(':')) return { comment: block.slice(1).trim() };
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  return { ...(id === undefined ? {} : { id }), data: data.join('\n') };
}

export function chunkOf(item: SseItem | undefined): ChatCompletionChunk {
  if (!item || !('data' in item) || item.data === '[DONE]') throw new Error(`not a chunk: ${JSON.stringify(item)}`);
  return JSON.parse(item.data) as ChatCompletionChunk;
}
