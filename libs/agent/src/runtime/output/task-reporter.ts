import type { Interaction, Task, TaskFile, TaskStatus } from '@fed/contracts';
import type { TaskRecord, TurnLedger, UiResourceRecord } from '@fed/conversations';
import { randomUUID } from 'node:crypto';
import type { TurnOutput } from './turn-output';

/** What a tool's task says; the reporter adds ids, position and times. */
export interface TaskFields {
  callId?: string;
  actionType: string;
  title?: string;
  description?: string;
  content?: string;
  status: TaskStatus;
  metadata?: Record<string, unknown>;
  files?: TaskFile[];
}

/** Shows a turn's tasks: each is stored (history keeps every task's last state), then sent as its own chunk. */
export class TaskReporter {
  private position = 0;

  constructor(
    private readonly ledger: TurnLedger,
    private readonly output: TurnOutput,
    private readonly owner: { messageId: string; conversationId: string },
  ) {}

  async show(fields: TaskFields, interaction?: Interaction): Promise<void> {
    const now = new Date();
    const record: TaskRecord = {
      ...fields,
      id: randomUUID(),
      messageId: this.owner.messageId,
      conversationId: this.owner.conversationId,
      position: this.position++,
      timestamp: now.getTime(),
      createdAt: now,
      updatedAt: now,
    };
    await this.ledger.saveTask(record);
    const task = toWireTask(record);
    if (interaction) this.output.interaction(task, interaction);
    else this.output.task(task);
  }

  /** Stores a UI resource of the turn (retrieval reads its HTML); false when the turn was ended meanwhile. */
  saveUiResource(resource: UiResourceRecord): Promise<boolean> {
    return this.ledger.saveUiResource(this.owner.messageId, resource);
  }
}

function toWireTask(record: TaskRecord): Task {
  const task: Task = {
    messageId: record.messageId,
    conversationId: record.conversationId,
    actionType: record.actionType,
    status: record.status,
    timestamp: record.timestamp,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
  if (record.callId !== undefined) task.callId = record.callId;
  if (record.title !== undefined) task.title = record.title;
  if (record.description !== undefined) task.description = record.description;
  if (record.content !== undefined) task.content = record.content;
  if (record.metadata !== undefined) task.metadata = record.metadata;
  if (record.files !== undefined && record.files.length > 0) task.files = record.files;
  return task;
}
