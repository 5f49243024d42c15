import { type RunStream, STREAM_START, StreamEndedError, StreamLostError } from '@fed/bus';
import {
  type ChatCompletionChunk,
  type Deliverable,
  STREAM_LOST,
  errorChunk,
  finalChunk,
  isUuid,
  type RunJob,
} from '@fed/contracts';
import type { ClaimedTurn, PendingInteraction, TurnLedger } from '@fed/conversations';
import { type Logger, type TurnOutcome } from '@fed/observability';
import { ModelError } from '../model/model-error';
import { ChunkWriter } from '../output/chunk-writer';
import { TaskReporter } from '../output/task-reporter';
import { TurnOutput } from '../output/turn-output';
import type { DeliverableStore } from '../output/turn-deliverables';
import { ContentBlockedError } from './guarded-answerer';
import type { TurnControl } from './turn-control';
import type { TurnAnswerer } from './turn-answerer';

export interface RunnerSettings {
  chunkModel: string;
  coalesceMs: number;
  turnTimeoutMs: number;
  streamTtlSeconds: number;
}

/** How a turn ended, and so what the ledger stores and which final chunk is sent. */
type TurnEnding =
  | { kind: 'answered'; unfinished: boolean; pendingInteraction?: PendingInteraction }
  | { kind: 'stopped'; reason: 'cancelled' | 'lost' }
  /** Its runtime is stopping: the turn stays processing and the job goes back to the queue. */
  | { kind: 'handed_back' }
  /** The queue may have handed the job to another runtime: nothing more is written, that one decides. */
  | { kind: 'abandoned' }
  | { kind: 'failed'; code: string; message: string };

/** The job is handed back to the queue (its runtime is stopping); another runtime decides what to do. */
export class TurnHandedBackError extends Error {
  constructor(runId: string) {
    super(`agent runtime stopping: turn ${runId} handed back`);
    this.name = 'TurnHandedBackError';
  }
}

/** The runtime lost its hold on the job (its lock lapsed or was refused): the turn is left to whoever has it now. */
export class TurnAbandonedError extends Error {
  constructor(runId: string) {
    super(`agent runtime lost the job of turn ${runId}: left to the runtime that holds it now`);
    this.name = 'TurnAbandonedError';
  }
}

const FINISH_ATTEMPTS = 3;
/** How long the end of a stream is retried while Redis is out of reach. */
const END_RETRY_MS = 10_000;

/** Claims, answers and ends a turn: ledger first (a client seeing `[DONE]` may post at once), then the stream. */
export class TurnRunner {
  constructor(
    private readonly ledger: TurnLedger,
    private readonly stream: RunStream,
    private readonly answerer: Pick<TurnAnswerer, 'answer'>,
    private readonly deliverables: DeliverableStore,
    private readonly settings: RunnerSettings,
    private readonly logger: Logger,
  ) {}

  /** How the turn ended (`agent_turns_total`); undefined when there was no turn to run. */
  async run(job: RunJob, control: TurnControl): Promise<TurnOutcome | undefined> {
    if (!isUuid(job.runId)) {
      this.logger.warn({ runId: job.runId }, 'agent job with a run id that is not a message id: dropped');
      return undefined;
    }
    const turn = await this.ledger.claim(job.runId);
    if (!turn) return undefined;
    if (await this.shownBefore(turn.runId)) {
      await this.endLostAttempt(turn);
      return 'error';
    }

    const writer = new ChunkWriter(this.stream, turn.runId, {
      model: this.settings.chunkModel,
      coalesceMs: this.settings.coalesceMs,
      onEnded: () => control.stop('lost'),
      onFailed: (error) => {
        this.logger.error({ err: error, runId: turn.runId }, 'agent turn chunks could not be appended');
        control.stop('stream_failed');
      },
      holdsJob: () => control.holdsJob(),
      onJobLost: () => control.stop('job_lost'),
    });
    const output = new TurnOutput(writer, turn.options.outputFormat);
    control.shownText = () => output.text;
    if (turn.cancelRequested) control.stop('cancelled');

    let ending: TurnEnding;
    const timeout = setTimeout(() => control.stop('timeout'), this.settings.turnTimeoutMs);
    try {
      control.signal.throwIfAborted();
      const tasks = new TaskReporter(this.ledger, output, {
        messageId: turn.runId,
        conversationId: turn.conversationId,
      });
      const deliverables = await this.deliverables.open(turn, control.signal);
      const outcome = await this.answerer.answer(turn, output, tasks, deliverables, control.signal);
      ending =
        outcome.kind === 'interaction'
          ? { kind: 'answered', unfinished: false, pendingInteraction: outcome.pendingInteraction }
          : { kind: 'answered', unfinished: outcome.kind === 'step_limit' };
    } catch (error) {
      ending = this.failure(turn, control, error);
    } finally {
      clearTimeout(timeout);
    }

    // Only a runtime that surely holds the job writes the end (waits while the hold is unconfirmed).
    if (ending.kind === 'abandoned' || !(await control.holdsJob())) {
      writer.discard();
      this.logger.warn({ runId: turn.runId }, 'agent turn left to another runtime: this one lost its hold on the job');
      throw new TurnAbandonedError(turn.runId);
    }
    if (ending.kind === 'handed_back') {
      // Keep what was shown, leave the turn processing: the next attempt decides (docs/chat.md, Runtime loss).
      await output.end();
      await this.ledger.heartbeat([{ runId: turn.runId, text: output.text }]).catch(() => undefined);
      throw new TurnHandedBackError(turn.runId);
    }
    await output.end();
    // Readers saw a broken stream; the stored message says so (docs/chat.md, "When the stream breaks").
    if (writer.broken && ending.kind !== 'stopped') ending = { kind: 'failed', ...STREAM_LOST };
    const finished = await this.end(turn, output, writer, ending);
    return finished === 'failed' ? 'error' : outcomeOf(ending);
  }

  /** More than the role chunk in the stream: an earlier attempt died after showing output. */
  private async shownBefore(runId: string): Promise<boolean> {
    const read = await this.stream.read(runId, STREAM_START, { count: 2 });
    return read.entries.length > 1;
  }

  /** Never replayed into the same stream: ended unfinished with the text the ledger has. */
  private async endLostAttempt(turn: ClaimedTurn): Promise<void> {
    this.logger.warn({ runId: turn.runId }, 'agent turn was interrupted after showing output: ending it unfinished');
    // The files the earlier attempt wrote were shown as its tasks: they stay the message's deliverables.
    const deliverables = await this.deliverablesOf(turn.runId);
    const error = {
      code: 'runtime_lost',
      message: 'The agent runtime working on this answer stopped; the answer is incomplete.',
    };
    const finished = await this.ledger.finish(turn.runId, { unfinished: true, deliverables, error });
    if (finished) {
      const chunk = withDeliverables(errorChunk(this.settings.chunkModel, error.code, error.message), deliverables);
      await this.stream.append(turn.runId, JSON.stringify(chunk)).catch(ignoreEnded);
    }
    await this.endStream(turn.runId);
  }

  private failure(turn: ClaimedTurn, control: TurnControl, error: unknown): TurnEnding {
    switch (control.reason) {
      case 'cancelled':
      case 'lost':
        return { kind: 'stopped', reason: control.reason };
      case 'shutdown':
        return { kind: 'handed_back' };
      case 'job_lost':
        return { kind: 'abandoned' };
      case 'timeout':
        return {
          kind: 'failed',
          code: 'turn_timeout',
          message: `The answer took longer than ${Math.round(this.settings.turnTimeoutMs / 1000)} seconds and was stopped.`,
        };
      case 'stream_failed':
        return { kind: 'failed', ...STREAM_LOST };
      case undefined:
        break;
    }
    if (error instanceof ContentBlockedError) return { kind: 'failed', code: error.code, message: error.message };
    if (error instanceof ModelError) {
      this.logger.error({ runId: turn.runId, code: error.code, reason: error.message }, 'agent model call failed');
      return { kind: 'failed', code: error.code, message: error.message };
    }
    this.logger.error({ err: error, runId: turn.runId }, 'agent turn failed');
    return { kind: 'failed', code: 'agent_failed', message: 'The agent failed while answering.' };
  }

  private async end(
    turn: ClaimedTurn,
    output: TurnOutput,
    writer: ChunkWriter,
    ending: TurnEnding,
  ): Promise<'finished' | 'not_processing' | 'failed'> {
    await output.end();
    // Every ending keeps the files written before it, failures included (docs/chat.md, Deliverables).
    const deliverables = await this.deliverablesOf(turn.runId);
    const finished = await this.finish(turn, {
      // Nothing shown in this attempt: keep what the ledger has.
      text: output.text.length > 0 ? output.text : undefined,
      unfinished: ending.kind !== 'answered' || ending.unfinished,
      pendingInteraction: ending.kind === 'answered' ? ending.pendingInteraction : undefined,
      deliverables,
      ...(ending.kind === 'failed' ? { error: { code: ending.code, message: ending.message } } : {}),
    });
    if (finished === 'not_processing') {
      await this.endStream(turn.runId);
      return finished;
    }
    const chunk =
      finished === 'failed'
        ? errorChunk(this.settings.chunkModel, 'agent_failed', 'The answer could not be saved.')
        : withDeliverables(this.finalChunkOf(ending), deliverables);
    if (chunk) {
      writer.sendFinal(chunk);
      await writer.drain();
    }
    await this.endStream(turn.runId);
    return finished;
  }

  private finalChunkOf(ending: TurnEnding): ChatCompletionChunk | undefined {
    const model = this.settings.chunkModel;
    switch (ending.kind) {
      case 'answered':
        return ending.unfinished ? finalChunk(model, 'stop', { status: 'unfinished' }) : finalChunk(model, 'stop');
      case 'stopped':
        // Lost: whoever ended the turn wrote its end.
        return ending.reason === 'cancelled' ? finalChunk(model, 'stop', { status: 'unfinished' }) : undefined;
      case 'failed':
        return errorChunk(model, ending.code, ending.message);
      case 'handed_back':
      case 'abandoned':
        return undefined;
    }
  }

  /** The turn's files as the ledger has them; none when they cannot be read (the end must still happen). */
  private async deliverablesOf(runId: string): Promise<Deliverable[]> {
    try {
      return await this.ledger.deliverables(runId);
    } catch (error) {
      this.logger.error({ err: error, runId }, 'agent turn deliverables could not be read');
      return [];
    }
  }

  /** The ledger's end, retried briefly: a turn must not stay processing because of one failed statement. */
  private async finish(
    turn: ClaimedTurn,
    end: Parameters<TurnLedger['finish']>[1],
  ): Promise<'finished' | 'not_processing' | 'failed'> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.ledger.finish(turn.runId, end)) ? 'finished' : 'not_processing';
      } catch (error) {
        if (attempt >= FINISH_ATTEMPTS) {
          // The reaper will end it in the ledger; the client still gets an end now.
          this.logger.error({ err: error, runId: turn.runId }, 'agent turn could not be stored as finished');
          return 'failed';
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  /** Retried while Redis is unreachable; a stream lost with Redis stays absent (readers end it with `stream_lost`). */
  private async endStream(runId: string): Promise<void> {
    const retryUntil = Date.now() + END_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.stream.end(runId, { ttlSeconds: this.settings.streamTtlSeconds, existing: true });
        return;
      } catch (error) {
        if (error instanceof StreamLostError) return;
        if (Date.now() >= retryUntil) {
          this.logger.error({ err: error, runId }, 'agent turn stream could not be ended');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 250 * attempt)));
      }
    }
  }
}

function outcomeOf(ending: Exclude<TurnEnding, { kind: 'handed_back' | 'abandoned' }>): TurnOutcome {
  switch (ending.kind) {
    case 'answered':
      return ending.unfinished ? 'unfinished' : 'completed';
    case 'stopped':
      // Lost: the reaper (or another runtime) ended it; this runtime did not finish it.
      return ending.reason === 'cancelled' ? 'cancelled' : 'unfinished';
    case 'failed':
      return 'error';
  }
}

function withDeliverables(
  chunk: ChatCompletionChunk | undefined,
  deliverables: Deliverable[],
): ChatCompletionChunk | undefined {
  if (!chunk || deliverables.length === 0) return chunk;
  return { ...chunk, choices: [{ ...chunk.choices[0], deliverables }] };
}

function ignoreEnded(error: unknown): void {
  if (!(error instanceof StreamEndedError)) throw error;
}
