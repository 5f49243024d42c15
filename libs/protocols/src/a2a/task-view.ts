import { type Artifact, type Message, type Task, TaskState, type TaskStatus } from '@a2a-js/sdk';
import { type Interaction, type InteractionType, type UiResource } from '@fed/contracts';
import { type ConversationRecords, type StoredMessage, type StoredTask } from '@fed/conversations';
import {
  type TurnEnding,
  type TurnRef,
  agentMessage,
  endingStatus,
  fileArtifact,
  interactionArtifact,
  resultArtifact,
  status,
  task,
  uiResourceArtifact,
  userMessage,
} from './a2a-wire';

/** Document 3, "A2A default history": the most recent 100 messages when `historyLength` is not given. */
export const DEFAULT_HISTORY_LENGTH = 100;

/** The `history` a request asks for: `undefined` (not given or not a non-negative integer), 0 or N. */
export function historyWindow<T>(items: readonly T[], historyLength: number | undefined): T[] {
  const length = historyLength ?? DEFAULT_HISTORY_LENGTH;
  return length === 0 ? [] : items.slice(-length);
}

/** The conversation as one A2A task (document 3, "A2A task"), read from what the turns stored. */
export function taskFromRecords(records: ConversationRecords, baseUrl: string, historyLength?: number): Task {
  const history = historyWindow(records.messages, historyLength).map((message) =>
    message.sender === 'User'
      ? userMessage(records.conversationId, message.id, message.text)
      : agentMessage(records.conversationId, message.id, message.text),
  );
  return task(records.conversationId, storedStatus(records), storedArtifacts(records, baseUrl), history);
}

/** The artifacts of every turn, in order; `exceptTurn`'s are left out (the caller has them from its stream). */
export function storedArtifacts(records: ConversationRecords, baseUrl: string, exceptTurn?: string): Artifact[] {
  const byId = new Map<string, Artifact>();
  for (const message of records.messages) {
    if (message.sender !== 'AI' || message.id === exceptTurn) continue;
    for (const artifact of turnArtifacts(records, message, baseUrl)) {
      // A tool call id reused by a later turn names the newer UI resource (docs/chat.md "UI resources").
      byId.delete(artifact.artifactId);
      byId.set(artifact.artifactId, artifact);
    }
  }
  return [...byId.values()];
}

/** The state of the conversation's last turn (docs: "Task state from the database"). */
export function storedStatus(records: ConversationRecords): TaskStatus {
  const last = records.messages.findLast((message) => message.sender === 'AI');
  if (!last) return status(TaskState.TASK_STATE_SUBMITTED, new Date().toISOString());
  const turn = { conversationId: records.conversationId, messageId: last.id };
  const at = last.updatedAt.toISOString();
  if (!last.processing) return endingStatus(turn, storedEnding(records, last), at);
  if (!last.started) return status(TaskState.TASK_STATE_SUBMITTED, at);
  const progress = tasksOf(records, last.id).findLast((row) => row.title)?.title;
  return status(
    TaskState.TASK_STATE_WORKING,
    at,
    progress ? agentMessage(records.conversationId, `${last.id}-status`, progress, { kind: 'task' }) : undefined,
  );
}

/** An unfinished turn: `failed` with a stored error, `canceled` if cancelled, else `completed` (step limit). */
function storedEnding(records: ConversationRecords, message: StoredMessage): TurnEnding {
  if (message.unfinished) {
    if (message.error) return { kind: 'failed', message: message.error.message };
    return message.cancelRequested ? { kind: 'canceled' } : { kind: 'completed', text: message.text, unfinished: true };
  }
  const interaction = interactionOf(tasksOf(records, message.id));
  return interaction
    ? { kind: 'input-required', interaction }
    : { kind: 'completed', text: message.text, unfinished: false };
}

function turnArtifacts(records: ConversationRecords, message: StoredMessage, baseUrl: string): Artifact[] {
  const turn: TurnRef = { conversationId: records.conversationId, messageId: message.id };
  const rows = tasksOf(records, message.id);
  const artifacts: Artifact[] = [];
  let uiCount = 0;
  for (const row of rows) {
    const resource = row.metadata?.uiResource as UiResource | undefined;
    if (!resource || row.metadata?.interaction_type !== undefined) continue;
    uiCount += 1;
    const key =
      (resource.type === 'html' ? resource.tool_call_id : undefined) ?? row.callId ?? `${message.id}-${uiCount}`;
    artifacts.push(uiResourceArtifact(turn, key, resource));
  }
  const interaction = interactionOf(rows);
  if (interaction) artifacts.push(interactionArtifact(turn, interaction));
  if (message.processing) return artifacts;
  for (const file of message.deliverables ?? []) artifacts.push(fileArtifact(baseUrl, turn, file));
  const ending = storedEnding(records, message);
  if (ending.kind === 'completed') artifacts.push(resultArtifact(turn, message.text, ending.unfinished));
  return artifacts;
}

/** The interaction a turn asked (its `ask_user` task), answered since or not. */
function interactionOf(rows: StoredTask[]): Interaction | undefined {
  const row = rows.find((candidate) => candidate.metadata?.interaction_type !== undefined);
  if (!row?.metadata) return undefined;
  const { interaction_type: interactionType, options, uiResource } = row.metadata;
  return {
    interactionType: interactionType as InteractionType,
    content: row.content ?? '',
    ...(Array.isArray(options) ? { options: options as string[] } : {}),
    ...(uiResource ? { uiResource: uiResource as UiResource } : {}),
  };
}

function tasksOf(records: ConversationRecords, messageId: string): StoredTask[] {
  return records.tasks.filter((row) => row.messageId === messageId);
}

/** The message a client sent, as `history` of a send or stream answer shows it. */
export function sentHistory(sent: Message, conversationId: string, historyLength: number | undefined): Message[] {
  return historyLength === 0 ? [] : [{ ...sent, contextId: conversationId, taskId: conversationId }];
}
