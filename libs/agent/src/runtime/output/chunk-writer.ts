import { type RunStream, StreamEndedError, StreamLostError } from '@fed/bus';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChatCompletionChunk, type ChunkDelta, contentChunk } from '@fed/contracts';

export interface ChunkWriterOptions {
  model: string;
  /** Text arriving within this many ms goes out as one chunk; 0 sends each piece as it comes. */
  coalesceMs: number;
  /** The stream was ended by someone else (the reaper): nothing more may be written. */
  onEnded(): void;
  /** An append failed (the bus is unreachable, or lost the stream): the turn cannot be shown any more. */
  onFailed(error: unknown): void;
  /** How long the final chunk is retried after a failed append (default 10 s); never once the stream is lost/ended. */
  finalRetryMs?: number;
  /** False once the queue may have re-handed the job: nothing more is written, and `onJobLost` is called once. */
  holdsJob?(): boolean | Promise<boolean>;
  onJobLost?(): void;
}

/** Appends chunks in order, coalescing text within a leading-edge window, so text after a pause is not held back. */
export class ChunkWriter {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  /** A leading-edge send waiting for the end of this turn of the event loop. */
  private immediate: NodeJS.Immediate | undefined;
  private lastTextAt = -Infinity;
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

  /** An append failed: readers may have missed chunks, and the end they see says the stream broke. */
  get broken(): boolean {
    return this.failed;
  }

  write(piece: string): void {
    if (piece.length === 0) return;
    this.pending += piece;
    this.shown += piece;
    if (this.options.coalesceMs === 0) return this.sendText();
    if (this.timer || this.immediate) return;
    if (performance.now() - this.lastTextAt >= this.options.coalesceMs) {
      this.immediate = setImmediate(() => this.sendText());
      return;
    }
    this.timer = setTimeout(() => this.sendText(), this.options.coalesceMs);
    this.timer.unref();
  }

  /** A chunk other than text (tasks, an interaction): waiting text goes first. */
  send(delta: Omit<ChunkDelta, 'role' | 'messageInfo' | 'content'>): void {
    this.sendText();
    this.enqueue(contentChunk(this.options.model, delta), false);
  }

  /** A chunk whose `content` is part of the answer (a UI resource's alternative text); it counts in `text`. */
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

  /** Drops waiting text and writes nothing more (the job is no longer this runtime's). */
  discard(): void {
    this.cancelWaits();
    this.pending = '';
    this.ended = true;
  }

  /** Sends waiting text and resolves once every chunk given so far has been appended (or dropped). */
  async drain(): Promise<void> {
    this.sendText();
    await this.tail;
  }

  private sendText(): void {
    this.cancelWaits();
    if (this.pending.length === 0) return;
    const chunk = contentChunk(this.options.model, { content: this.pending });
    this.pending = '';
    this.lastTextAt = performance.now();
    this.enqueue(chunk, false);
  }

  private cancelWaits(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }

  private enqueue(chunk: ChatCompletionChunk, final: boolean): void {
    const data = JSON.stringify(chunk);
    this.tail = this.tail.then(() => this.append(data, final));
  }

  private async append(data: string, final: boolean): Promise<void> {
    if (this.ended || (this.failed && !final)) return;
    if (this.options.holdsJob && !(await this.options.holdsJob())) {
      if (!this.ended) this.options.onJobLost?.();
      this.discard();
      return;
    }
    // Discarded while it waited for the hold.
    if (this.ended) return;
    // The final chunk is retried while the store may come back with the stream: readers need the end.
    const retryUntil = final ? Date.now() + (this.options.finalRetryMs ?? 10_000) : 0;
    for (let attempt = 1; ; attempt++) {
      try {
        // `existing`: a lost stream is never recreated without its start, which readers would take as whole.
        await this.stream.append(this.streamId, data, undefined, { existing: true });
        return;
      } catch (error) {
        if (error instanceof StreamEndedError) {
          this.ended = true;
          this.options.onEnded();
          return;
        }
        if (error instanceof StreamLostError) this.ended = true;
        if (!this.failed) {
          this.failed = true;
          this.options.onFailed(error);
        }
        if (this.ended || Date.now() >= retryUntil) return;
        await sleep(Math.min(2000, 250 * attempt));
      }
    }
  }
}
