import type { Deliverable, Task } from '@fed/contracts';
import type { MessageFile, PendingInteraction, Sender, TurnOptions } from '../storage';

/** One earlier message of the conversation, as the prompt needs it. */
export interface HistoryMessage {
  sender: Sender;
  text: string;
}

/** A turn the runtime has taken: everything it needs to answer, read once at claim. */
export interface ClaimedTurn {
  /** The assistant message id: run id, job id and stream id. */
  runId: string;
  conversationId: string;
  userId: string;
  tenantId: string | null;
  options: TurnOptions;
  /** The text stored so far (a heartbeat of an earlier attempt may have kept what it had shown). */
  text: string;
  /** The user message this turn answers. */
  userMessage: { messageId: string; text: string; files: MessageFile[] };
  /**
   * Earlier messages, oldest first (at most the last `HISTORY_LIMIT`), without the message that holds
   * `pendingInteraction`.
   */
  history: HistoryMessage[];
  /** Set when the assistant message just before the user's ended on `ask_user`: the user's message answers it. */
  pendingInteraction: PendingInteraction | null;
  cancelRequested: boolean;
}

/** A running turn's heartbeat: the text it has shown so far. */
export interface TurnHeartbeat {
  runId: string;
  text: string;
}

/** A turn the heartbeat found still processing. */
export interface LiveTurn {
  runId: string;
  /** `cancel_requested_at` is set: the state of record behind a `run.cancelled` signal that may have been lost. */
  cancelRequested: boolean;
}

/** The last state of one task the stream showed (one row per task): the wire Task, with its row id and order. */
export interface TaskRecord extends Omit<Task, 'createdAt' | 'updatedAt'> {
  /** Chosen by the runtime; saving the same id again replaces the row's state. */
  id: string;
  /** Order inside the message. */
  position: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface TurnEnd {
  /** The final text; undefined keeps what is stored (the last heartbeat's). */
  text?: string;
  unfinished: boolean;
  pendingInteraction?: PendingInteraction;
  deliverables?: Deliverable[];
}
