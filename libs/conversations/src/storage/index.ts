import { ArchivedConversationEntity, ConversationEntity } from './conversation.entity';
import { FileEntity } from './file.entity';
import { MessageEntity } from './message.entity';
import { TaskEntity } from './task.entity';

export * from './conversation.entity';
export * from './file.entity';
export * from './message.entity';
export * from './task.entity';

export const conversationEntities = [
  ConversationEntity,
  ArchivedConversationEntity,
  MessageEntity,
  TaskEntity,
  FileEntity,
];
