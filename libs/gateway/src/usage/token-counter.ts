import { Worker } from 'node:worker_threads';
import { type AnthropicCountTokensRequest, type ChatCompletionRequest } from '../wire';

// The vocabulary takes ~100 MB of heap and 0.6 s to load: in a worker thread, the gateway's own heap
// and GC pauses stay small and no request waits for it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Tiktoken } = require(workerData.lite);
const ranks = require(workerData.ranks);
const encoder = new Tiktoken(ranks.default ?? ranks);
const SAMPLE = 200000;
const count = (text) => {
  if (text.length <= SAMPLE) return encoder.encode(text, 'all').length;
  return Math.ceil((encoder.encode(text.slice(0, SAMPLE), 'all').length * text.length) / SAMPLE);
};
parentPort.on('message', ({ id, texts }) => {
  let total = 0;
  for (const text of texts) total += count(text);
  parentPort.postMessage({ id, total });
});
`;

/**
 * o200k_base counts (exact for recent OpenAI models, an estimate for others). Texts over 200,000
 * characters are counted on a sample and scaled, so a 32 MB body cannot hold the worker for long.
 */
export class TokenCounter {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (total: number) => void>();

  /** Starts loading the vocabulary now, rather than on the first count. */
  start(): void {
    if (this.worker) return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        lite: require.resolve('js-tiktoken/lite'),
        ranks: require.resolve('js-tiktoken/ranks/o200k_base'),
      },
    });
    worker.unref();
    worker.on('message', ({ id, total }: { id: number; total: number }) => {
      this.pending.get(id)?.(total);
      this.pending.delete(id);
    });
    worker.on('error', () => this.fail());
    worker.on('exit', () => this.fail());
    this.worker = worker;
  }

  count(texts: readonly string[]): Promise<number> {
    const nonEmpty = texts.filter((text) => text.length > 0);
    if (nonEmpty.length === 0) return Promise.resolve(0);
    this.start();
    const id = this.nextId++;
    return new Promise<number>((resolve) => {
      this.pending.set(id, resolve);
      (this.worker as Worker).postMessage({ id, texts: nonEmpty });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    this.fail();
  }

  // A dead worker answers nothing more: waiting counts fall back to the four-characters rule.
  private fail(): void {
    this.worker = undefined;
    for (const resolve of this.pending.values()) resolve(-1);
    this.pending.clear();
  }
}

function textsOf(content: unknown, into: string[]): void {
  if (typeof content === 'string') into.push(content);
  else if (Array.isArray(content)) for (const part of content) textsOf(part, into);
  else if (content && typeof content === 'object') {
    const block = content as Record<string, unknown>;
    for (const key of ['text', 'thinking', 'content', 'arguments', 'name'] as const) textsOf(block[key], into);
    if (block.input && typeof block.input === 'object') into.push(JSON.stringify(block.input));
    if (block.function && typeof block.function === 'object') textsOf(block.function, into);
    if (Array.isArray(block.tool_calls)) textsOf(block.tool_calls, into);
  }
}

// As OpenAI documents for its chat format (an estimate elsewhere).
const PER_MESSAGE = 3;
const PER_REQUEST = 3;
// A mid-sized tile; exact counts depend on the model and the image's size.
const PER_IMAGE = 765;

function imagesIn(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  return content.filter((part) => {
    const type = (part as { type?: string })?.type;
    return type === 'image_url' || type === 'image';
  }).length;
}

export interface RequestText {
  texts: string[];
  fixedTokens: number;
}

export function chatRequestText(request: Pick<ChatCompletionRequest, 'messages' | 'tools'>): RequestText {
  const texts: string[] = [];
  let fixedTokens = PER_REQUEST;
  for (const message of request.messages ?? []) {
    textsOf(message, texts);
    fixedTokens += PER_MESSAGE + PER_IMAGE * imagesIn(message.content);
  }
  if (request.tools?.length) texts.push(JSON.stringify(request.tools));
  return { texts, fixedTokens };
}

export function messagesRequestText(request: AnthropicCountTokensRequest): RequestText {
  const texts: string[] = [];
  let fixedTokens = PER_REQUEST;
  if (request.system) {
    textsOf(request.system, texts);
    fixedTokens += PER_MESSAGE;
  }
  for (const message of request.messages ?? []) {
    textsOf(message.content, texts);
    fixedTokens += PER_MESSAGE + PER_IMAGE * imagesIn(message.content);
  }
  if (request.tools?.length) texts.push(JSON.stringify(request.tools));
  return { texts, fixedTokens };
}

/** Instant, for an estimate that a real count follows. */
export function quickTokenEstimate({ texts, fixedTokens }: RequestText): number {
  return fixedTokens + texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
}

/** The quick estimate when the counter is gone. */
export async function countRequestTokens(counter: TokenCounter, text: RequestText): Promise<number> {
  const counted = await counter.count(text.texts);
  return counted < 0 ? quickTokenEstimate(text) : text.fixedTokens + counted;
}
