import { type RunStream, StreamEndedError } from '@fed/bus';
import { type ChatCompletionChunk, type ChunkDelta, contentChunk } from '@fed/contracts';

export interface ChunkWriterOptions {
  /** The `model` of every chunk (the chat API's fixed model name). */
  model: string;
  /** Text arriving within this many ms goes out as one chunk; 0 sends each piece as it comes. */
  coalesceMs: number;
  /** The stream was ended by someone else (the reaper): nothing more may be written. */
  onEnded(): void;
  /** An append failed (the bus is unreachable): the turn cannot be shown any more. */
  onFailed(error: unknown): void;
}

/**
 * Appends one turn's chunks to its run stream, strictly in order (one append at a time), coalescing
 * text: pieces arriving within `coalesceMs` become one content chunk, never reordered or altered. Any
 * other chunk first sends the text waiting before it.
 */
export class ChunkWriter {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private tail: Promise<void> = Promise.resolve();
  private shown = '';
  private ended = false;
  private failed = false;

  constructor(
    private readonly stream: RunStream,
    private readonly streamId: string,
    private readonly options: ChunkWriterOptions,
  ) {}

  /** Every piece of text given to the stream so far, waiting pieces included. */
  get text(): string {
    return this.shown;
  }

  write(piece: string): void {
    if (piece.length === 0) return;
    this.pending += piece;
    this.shown += piece;
    if (this.options.coalesceMs === 0) return this.sendText();
    if (!this.timer) {
      this.timer = setTimeout(() => this.sendText(), this.options.coalesceMs);
      this.timer.unref();
    }
  }

  /** A chunk other than text (tasks, an interaction): waiting text goes first. */
  send(delta: Omit<ChunkDelta, 'role' | 'messageInfo' | 'content'>): void {
    this.sendText();
    this.enqueue(contentChunk(this.options.model, delta), false);
  }

  /**
   * A chunk whose `content` is part of the answer beside other fields (a UI resource and its alternative
   * text): waiting text goes first, and `content` counts in `text` like any piece.
   */
  sendWithText(content: string, delta: Omit<ChunkDelta, 'role' | 'messageInfo' | 'content'>): void {
    this.sendText();
    this.shown += content;
    this.enqueue(contentChunk(this.options.model, { content, ...delta }), false);
  }

  /** The final chunk: still tried after a failed append (a client should see the end), never after the stream ended. */
  sendFinal(chunk: ChatCompletionChunk): void {
    this.sendText();
    this.enqueue(chunk, true);
  }

  /** Sends waiting text and resolves once every chunk given so far has been appended (or dropped). */
  async drain(): Promise<void> {
    this.sendText();
    await this.tail;
  }

  private sendText(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const chunk = contentChunk(this.options.model, { content: this.pending });
    this.pending = '';
    this.enqueue(chunk, false);
  }

  private enqueue(chunk: ChatCompletionChunk, final: boolean): void {
    const data = JSON.stringify(chunk);
    this.tail = this.tail.then(() => this.append(data, final));
  }

  private async append(data: string, final: boolean): Promise<void> {
    if (this.ended || (this.failed && !final)) return;
    try {
      await this.stream.append(this.streamId, data);
    } catch (error) {
      if (error instanceof StreamEndedError) {
        this.ended = true;
        this.options.onEnded();
      } else if (!this.failed) {
        this.failed = true;
        this.options.onFailed(error);
      }
    }
  }
}
