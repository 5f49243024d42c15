import { type Deliverable, type Task } from '@fed/contracts';
import { type MessageEntity, type MessageFile, type Sender } from '../storage/message.entity';
import { type TaskEntity } from '../storage/task.entity';

/** The spec's Message (history) object. */
export interface HistoryMessageResponse {
  conversationId: string;
  messageId: string;
  sender: Sender;
  text: string;
  createdAt: string;
  updatedAt: string;
  status: { processing: boolean; unfinished: boolean };
  tasks: Task[];
  deliverables?: Deliverable[];
  files?: MessageFile[];
  archived?: true;
}

export interface HistoryPageResponse {
  messages: HistoryMessageResponse[];
  hasMore: boolean;
  cursor?: string;
}

/** A Task with its absent optional fields omitted, `timestamp` as a number. */
export function toTaskResponse(task: TaskEntity): Task {
  return {
    messageId: task.messageId,
    conversationId: task.conversationId,
    ...(task.callId !== null ? { callId: task.callId } : {}),
    actionType: task.actionType,
    ...(task.title !== null ? { title: task.title } : {}),
    ...(task.description !== null ? { description: task.description } : {}),
    ...(task.content !== null ? { content: task.content } : {}),
    status: task.status,
    ...(task.metadata !== null ? { metadata: task.metadata } : {}),
    ...(task.files && task.files.length > 0 ? { files: task.files } : {}),
    timestamp: Number(task.timestamp),
    createdAt: task.createdAt.toISOString(),
    updatedAt: task.updatedAt.toISOString(),
  };
}

/** The spec's fields only: what the row keeps for the runtime (filename, filepath) is not shown. */
function toMessageFileResponse(file: MessageFile): MessageFile {
  return {
    fileId: file.fileId,
    mimeType: file.mimeType,
    ...(file.width !== undefined ? { width: file.width } : {}),
    ...(file.height !== undefined ? { height: file.height } : {}),
  };
}

export function toHistoryMessageResponse(
  message: MessageEntity,
  tasks: readonly TaskEntity[],
  archived: boolean,
): HistoryMessageResponse {
  return {
    conversationId: message.conversationId,
    messageId: message.id,
    sender: message.sender,
    text: message.text,
    createdAt: message.createdAt.toISOString(),
    updatedAt: message.updatedAt.toISOString(),
    status: { processing: message.processing, unfinished: message.unfinished },
    tasks: tasks.map(toTaskResponse),
    ...(message.deliverables && message.deliverables.length > 0 ? { deliverables: message.deliverables } : {}),
    ...(message.sender === 'User' && message.files && message.files.length > 0
      ? { files: message.files.map(toMessageFileResponse) }
      : {}),
    ...(archived ? { archived: true as const } : {}),
  };
}
