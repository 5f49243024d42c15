import { ArchivedConversationEntity, ConversationEntity } from './conversation.entity';
import { DeliverableEntity } from './deliverable.entity';
import { FileEntity } from './file.entity';
import { MessageEntity } from './message.entity';
import { TaskEntity } from './task.entity';
import { UiResourceEntity } from '../ui-resources/ui-resource.entity';

export * from './conversation.entity';
export * from './deliverable.entity';
export * from './file.entity';
export * from './message.entity';
export * from './task.entity';
export * from '../ui-resources/ui-resource.entity';

export const conversationEntities = [
  ConversationEntity,
  ArchivedConversationEntity,
  MessageEntity,
  TaskEntity,
  FileEntity,
  DeliverableEntity,
  UiResourceEntity,
];
