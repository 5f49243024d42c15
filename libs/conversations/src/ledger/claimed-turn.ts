import type { Deliverable, Task } from '@fed/contracts';
import type { PendingInteraction, Sender, StoredMessageFile, TurnError, TurnOptions } from '../storage';

/** One earlier message of the conversation, as the prompt needs it. */
export interface HistoryMessage {
  sender: Sender;
  text: string;
  /** User messages with attachments only. */
  files?: StoredMessageFile[];
}

/** An attachment of the message a turn answers, with where the runtime reads its bytes. */
export interface TurnFile extends StoredMessageFile {
  /** Uploads: the blob key, null once the file is deleted. Library files (`filepath` set) have none. */
  blobKey?: string | null;
  bytes?: number;
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
  userMessage: { messageId: string; text: string; files: TurnFile[] };
  /** Oldest first, at most `HISTORY_LIMIT`, without the message holding `pendingInteraction`. */
  history: HistoryMessage[];
  /** Set when the assistant message just before the user's ended on `ask_user`: the user's message answers it. */
  pendingInteraction: PendingInteraction | null;
  cancelRequested: boolean;
}

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
  /** The turn failed: its error chunk's `error`. */
  error?: TurnError;
}

/** An output file of a turn as the ledger stores it; owner ids come from the turn's message. */
export interface DeliverableRecord {
  /** Chosen by the runtime: the blob key contains it. */
  id: string;
  filepath: string;
  filename: string;
  mimeType?: string;
  size: number;
  /** The tool asked for this file to be the turn's main result. */
  primary: boolean;
  blobKey: string;
}

/** A stored output file, and the blob of the file it replaced at the same path (the caller deletes it). */
export interface SavedDeliverable {
  deliverable: Deliverable;
  replacedBlobKey: string | null;
}
