import { type ConversationOwner, DeliverableEntity, MessageEntity } from '@fed/conversations';
import { type DataSource, IsNull, Not } from 'typeorm';

export interface DeliverableLookup {
  filepath: string;
  conversationId?: string;
  messageId?: string;
}

/** What MCP reads of the conversation tables, always through their owner (another user's rows are absent). */
export class McpRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The owner's newest deliverable with this path, within the conversation and turn when given. */
  newestDeliverable(owner: ConversationOwner, lookup: DeliverableLookup): Promise<DeliverableEntity | null> {
    return this.dataSource.manager.findOne(DeliverableEntity, {
      where: {
        userId: owner.userId,
        tenantId: owner.tenantId ?? IsNull(),
        filepath: lookup.filepath,
        ...(lookup.conversationId ? { conversationId: lookup.conversationId } : {}),
        ...(lookup.messageId ? { messageId: lookup.messageId } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** Whether a cancel was asked for this assistant message (the state of record behind `run.cancelled`). */
  async cancelRequested(owner: ConversationOwner, messageId: string): Promise<boolean> {
    return this.dataSource.manager.exists(MessageEntity, {
      where: {
        id: messageId,
        userId: owner.userId,
        tenantId: owner.tenantId ?? IsNull(),
        cancelRequestedAt: Not(IsNull()),
      },
    });
  }
}
