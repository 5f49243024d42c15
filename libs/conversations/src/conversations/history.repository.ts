import { type PageParams } from '@fed/contracts';
import { type DataSource, In, LessThan, MoreThan } from 'typeorm';
import { MessageEntity } from '../storage/message.entity';
import { TaskEntity } from '../storage/task.entity';

/** Messages of a conversation and their tasks: what history shows. */
export class HistoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One page (`limit + 1` rows) of the user's messages of a conversation, in `seq` order. */
  messages(userId: string, conversationId: string, page: PageParams): Promise<MessageEntity[]> {
    const after = page.after?.[0];
    const seq =
      after === undefined ? undefined : page.order === 'asc' ? MoreThan(String(after)) : LessThan(String(after));
    return this.dataSource.manager.find(MessageEntity, {
      where: { conversationId, userId, ...(seq ? { seq } : {}) },
      order: { seq: page.order === 'asc' ? 'ASC' : 'DESC' },
      take: page.limit + 1,
    });
  }

  async tasksByMessage(conversationId: string, messageIds: string[]): Promise<Map<string, TaskEntity[]>> {
    const byMessage = new Map<string, TaskEntity[]>();
    if (messageIds.length === 0) return byMessage;
    const tasks = await this.dataSource.manager.find(TaskEntity, {
      where: { conversationId, messageId: In(messageIds) },
      order: { messageId: 'ASC', position: 'ASC', id: 'ASC' },
    });
    for (const task of tasks) {
      const list = byMessage.get(task.messageId);
      if (list) list.push(task);
      else byMessage.set(task.messageId, [task]);
    }
    return byMessage;
  }
}
