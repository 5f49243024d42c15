import {
  type Artifact,
  type Message,
  type Part,
  Role,
  type StreamResponse,
  type Task,
  TaskState,
  type TaskStatus,
} from '@a2a-js/sdk';
import { type Deliverable, type Interaction, type UiResource } from '@fed/contracts';

// Document 3's A2A objects in the SDK's v1.0 types; its transport handlers serialise them for v1.0 or v0.3 JSON.

/** The longest summary of an answer shown as the status message of a `completed` task. */
export const SUMMARY_CHARACTERS = 300;

export interface TurnRef {
  conversationId: string;
  /** The assistant message of the turn (also its run id). */
  messageId: string;
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}

/** A file part must name its type; a deliverable stored without one is plain bytes. */
const UNKNOWN_MEDIA_TYPE = 'application/octet-stream';

function urlPart(url: string, filename: string, mediaType: string | undefined): Part {
  return {
    content: { $case: 'url', value: url },
    metadata: undefined,
    filename,
    mediaType: mediaType || UNKNOWN_MEDIA_TYPE,
  };
}

export function agentMessage(
  conversationId: string,
  messageId: string,
  text: string,
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId,
    contextId: conversationId,
    taskId: conversationId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function userMessage(conversationId: string, messageId: string, text: string): Message {
  return { ...agentMessage(conversationId, messageId, text), role: Role.ROLE_USER };
}

export function status(state: TaskState, timestamp: string, message?: Message): TaskStatus {
  return { state, message, timestamp };
}

/** A task: a conversation (`id` = `contextId` = conversation id). */
export function task(conversationId: string, taskStatus: TaskStatus, artifacts: Artifact[], history: Message[]): Task {
  return { id: conversationId, contextId: conversationId, status: taskStatus, artifacts, history, metadata: undefined };
}

export function taskEvent(value: Task): StreamResponse {
  return { payload: { $case: 'task', value } };
}

export function statusEvent(conversationId: string, taskStatus: TaskStatus): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { taskId: conversationId, contextId: conversationId, status: taskStatus, metadata: undefined },
    },
  };
}

export function artifactEvent(conversationId: string, artifact: Artifact): StreamResponse {
  return {
    payload: {
      $case: 'artifactUpdate',
      value: {
        taskId: conversationId,
        contextId: conversationId,
        artifact,
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    },
  };
}

function artifact(artifactId: string, name: string, parts: Part[], metadata: Record<string, unknown>): Artifact {
  return { artifactId, name, description: '', parts, metadata, extensions: [] };
}

/** Where a deliverable is downloaded with the caller's token (docs/chat.md "Deliverables"). */
export function deliverableUrl(baseUrl: string, turn: TurnRef, filepath: string): string {
  const query = new URLSearchParams({ messageId: turn.messageId, filepath });
  return `${baseUrl}/api/v1/conversations/${turn.conversationId}/deliverables/content?${query.toString()}`;
}

export function fileArtifact(baseUrl: string, turn: TurnRef, file: Deliverable): Artifact {
  return artifact(
    `file-${file.filepath}-${turn.messageId}`,
    file.filename,
    [urlPart(deliverableUrl(baseUrl, turn, file.filepath), file.filename, file.mimeType)],
    {
      messageId: turn.messageId,
      filepath: file.filepath,
      source: file.source,
      isPrimary: file.isPrimary,
      ...(file.size !== undefined ? { size: file.size } : {}),
    },
  );
}

/** `key`: the resource's `tool_call_id`, else its tool call's id, else its position in the turn. */
export function uiResourceArtifact(turn: TurnRef, key: string, resource: UiResource): Artifact {
  return artifact(`ui-resource-${key}`, 'UI resource', [dataPart({ ...resource })], { messageId: turn.messageId });
}

export function interactionArtifact(turn: TurnRef, interaction: Interaction): Artifact {
  const parts = [textPart(interaction.content)];
  if (interaction.uiResource) parts.push(dataPart({ ...interaction.uiResource }));
  return artifact(`interaction-${turn.messageId}`, 'Interaction', parts, {
    messageId: turn.messageId,
    interactionType: interaction.interactionType,
    ...(interaction.options ? { options: interaction.options } : {}),
  });
}

export function resultArtifactId(messageId: string): string {
  return `result-${messageId}`;
}

/** `unfinished`: the turn stopped before its answer was done (step limit) and ended with what it had. */
export function resultArtifact(turn: TurnRef, text: string, unfinished: boolean): Artifact {
  return artifact(resultArtifactId(turn.messageId), 'Result', [textPart(text)], {
    messageId: turn.messageId,
    ...(unfinished ? { unfinished: true } : {}),
  });
}

/** The status message of a `completed` task: the answer's first paragraph, shortened with an ellipsis. */
export function summaryOf(answer: string): string {
  const paragraph =
    answer
      .trim()
      .split(/\r?\n\s*\r?\n/, 1)[0]
      ?.trim() ?? '';
  const characters = Array.from(paragraph);
  return characters.length <= SUMMARY_CHARACTERS
    ? paragraph
    : `${characters
        .slice(0, SUMMARY_CHARACTERS - 1)
        .join('')
        .trimEnd()}…`;
}

/** The status a turn ends with: what its final chunk (or its stored message) says. */
export type TurnEnding =
  | { kind: 'completed'; text: string; unfinished: boolean }
  | { kind: 'input-required'; interaction: Pick<Interaction, 'interactionType' | 'content'> }
  | { kind: 'canceled' }
  | { kind: 'failed'; message: string };

export const FAILED_MESSAGE = 'the agent could not finish this answer';

export function endingStatus(turn: TurnRef, ending: TurnEnding, timestamp: string): TaskStatus {
  const messageId = `${turn.messageId}-status`;
  switch (ending.kind) {
    case 'completed': {
      const summary = summaryOf(ending.text);
      return status(
        TaskState.TASK_STATE_COMPLETED,
        timestamp,
        summary ? agentMessage(turn.conversationId, messageId, summary) : undefined,
      );
    }
    case 'input-required':
      return status(
        TaskState.TASK_STATE_INPUT_REQUIRED,
        timestamp,
        agentMessage(turn.conversationId, messageId, ending.interaction.content, {
          interactionType: ending.interaction.interactionType,
        }),
      );
    case 'canceled':
      return status(
        TaskState.TASK_STATE_CANCELED,
        timestamp,
        agentMessage(turn.conversationId, messageId, 'the task was canceled'),
      );
    case 'failed':
      return status(
        TaskState.TASK_STATE_FAILED,
        timestamp,
        agentMessage(turn.conversationId, messageId, ending.message),
      );
  }
}
