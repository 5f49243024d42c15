import { setTimeout as sleep } from 'node:timers/promises';
import { readAnswer } from '../stack/scripted-answers';
import { type TurnRecord } from './chat-client';

interface HistoryMessage {
  messageId: string;
  sender: string;
  text: string;
  status?: { processing?: boolean; unfinished?: boolean };
}

/** What the turns of a scenario add up to, from the clients' records and the stored history. */
export interface TurnCounts {
  turns: number;
  completed: number;
  errorChunks: number;
  /** Final chunk `stop` + `unfinished` (no scenario cancels, so none is expected). */
  unfinished: number;
  /** Not started: the POST was never answered 200. */
  refused: number;
  hanging: number;
  /** Accepted turns whose user or assistant message is not in the history. */
  lost: number;
  /** Repeated SSE ids or final chunks, repeated answer pieces (streamed or stored), extra messages. */
  duplicated: number;
  /** Streams that ended without a final chunk, and "completed" answers with pieces missing. */
  cut: number;
  /**
   * Stored text that is not what was streamed (completed) or not a prefix of it (ended early); for a
   * stream that broke (`stream_lost`), stored and streamed text that contradict each other, or a stored
   * answer that is neither whole nor marked unfinished.
   */
  mismatched: number;
  /** Assistant messages still `processing` once everything settled. */
  stuck: number;
  reconnects: number;
  /** Error codes of the error chunks, with their counts. */
  errorCodes: Record<string, number>;
  /** Reasons the POSTs were refused, with their counts. */
  refusals: Record<string, number>;
}

export interface AuditOptions {
  /** A chat-service that answers (the history is read through the public API, as a client would). */
  chatUrl(): string;
  token(userId: string): Promise<string>;
  piecesPerAnswer: number;
  /** How long to wait for turns to leave `processing` before counting them stuck. */
  settleMs: number;
}

/** Reads back every accepted turn through `GET /v1/conversations/:id/messages` and counts. */
export async function auditTurns(records: TurnRecord[], options: AuditOptions): Promise<TurnCounts> {
  const counts: TurnCounts = {
    turns: records.length,
    completed: 0,
    errorChunks: 0,
    unfinished: 0,
    refused: 0,
    hanging: 0,
    lost: 0,
    duplicated: 0,
    cut: 0,
    mismatched: 0,
    stuck: 0,
    reconnects: 0,
    errorCodes: {},
    refusals: {},
  };
  const settleBy = Date.now() + options.settleMs;
  for (const record of records) {
    counts.reconnects += record.reconnects;
    const streamed = readAnswer(record.content, options.piecesPerAnswer);
    switch (record.outcome) {
      case 'completed':
        counts.completed++;
        if (!streamed.complete) counts.cut++;
        break;
      case 'error-chunk':
        counts.errorChunks++;
        bump(counts.errorCodes, record.errorCode ?? 'none');
        break;
      case 'unfinished':
        counts.unfinished++;
        break;
      case 'cut':
        counts.cut++;
        break;
      case 'hanging':
        counts.hanging++;
        break;
      case 'refused':
        counts.refused++;
        bump(counts.refusals, record.refusal ?? 'unknown');
        continue;
    }
    const duplicatedInStream = record.repeatedIds > 0 || record.finalChunks > 1 || streamed.repeated > 0;

    const history = await readHistory(record, options, settleBy);
    if (history === undefined) {
      counts.lost++;
      if (duplicatedInStream) counts.duplicated++;
      continue;
    }
    const users = history.filter((message) => message.sender === 'User');
    const answers = history.filter((message) => message.sender === 'AI');
    const answer = answers.find((message) => message.messageId === record.messageId);
    if (users.length === 0 || answer === undefined) {
      counts.lost++;
      continue;
    }
    const stored = readAnswer(answer.text, options.piecesPerAnswer);
    if (duplicatedInStream || users.length > 1 || answers.length > 1 || stored.repeated > 0) counts.duplicated++;
    if (users[0]?.text !== record.userText) counts.mismatched++;
    else if (record.outcome === 'completed' && answer.text !== record.content) counts.mismatched++;
    else if (record.errorCode === STREAM_LOST_CODE) {
      if (!streamLostConsistent(record.content, answer, stored.complete)) counts.mismatched++;
    } else if (record.outcome !== 'hanging' && !record.content.startsWith(answer.text)) counts.mismatched++;
    if (answer.status?.processing) counts.stuck++;
    if (process.env.FAULTS_DEBUG && (record.outcome !== 'completed' || answer.text !== record.content)) {
      const { content, ...rest } = record;
      process.stderr.write(
        `${JSON.stringify({ ...rest, streamed: content, stored: answer.text, status: answer.status })}\n`,
      );
    }
  }
  return counts;
}

/**
 * The conversation's messages, oldest first, once its assistant message has left `processing` (or
 * `settleBy` passed); undefined when the conversation is not there (404).
 */
async function readHistory(
  record: TurnRecord,
  options: AuditOptions,
  settleBy: number,
): Promise<HistoryMessage[] | undefined> {
  for (let attempt = 1; ; attempt++) {
    let messages: HistoryMessage[] | undefined;
    try {
      const res = await fetch(
        `${options.chatUrl()}/api/v1/conversations/${record.conversationId}/messages?order=asc&limit=100`,
        { headers: { authorization: `Bearer ${await options.token(record.userId)}` } },
      );
      if (res.status === 404) return undefined;
      if (res.ok) messages = ((await res.json()) as { messages: HistoryMessage[] }).messages;
      else await res.body?.cancel();
    } catch {
      // the instance is restarting: try again
    }
    const processing = messages?.some((message) => message.status?.processing) ?? true;
    if (messages && (!processing || Date.now() > settleBy)) return messages;
    if (!messages && Date.now() > settleBy + 30_000) {
      throw new Error(`the history of ${record.conversationId} could not be read (attempt ${attempt})`);
    }
    await sleep(250);
  }
}

/** The error code of a stream that broke under its reader (docs/chat.md, "When the stream breaks"). */
const STREAM_LOST_CODE = 'stream_lost';

/**
 * A client told its stream broke (`stream_lost`) may have been shown less than the agent wrote, or more
 * than the last heartbeat stored: the two must agree on what they share (one is a prefix of the other),
 * and the stored answer must be whole or marked unfinished (docs/reliability.md, "What is counted").
 */
function streamLostConsistent(streamed: string, answer: HistoryMessage, storedComplete: boolean): boolean {
  const agree = answer.text.startsWith(streamed) || streamed.startsWith(answer.text);
  return agree && (storedComplete || answer.status?.unfinished === true);
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
