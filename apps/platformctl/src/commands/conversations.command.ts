import { isUuid } from '@fed/contracts';
import { type ConversationsService, conversationEntities, conversationsServiceFor } from '@fed/conversations';
import { type Command, InvalidArgumentError } from 'commander';
import { withEntities } from './database';

function conversationId(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('a conversation id is a UUID');
  return value.toLowerCase();
}

/** Runs `work` on the service and prints what it did; a refusal (not found, processing) ends the command. */
async function withConversations(work: (conversations: ConversationsService) => Promise<string>): Promise<void> {
  const done = await withEntities(conversationEntities, (dataSource) => work(conversationsServiceFor(dataSource)));
  process.stdout.write(`${done}\n`);
}

export function registerConversations(program: Command): void {
  const conversations = program
    .command('conversations')
    .description('chat conversations: move one to the archive or back (idle ones are archived by chat-service)');

  conversations
    .command('archive')
    .description('move an active conversation to the archive now (refused while a turn is processing)')
    .argument('<conversationId>', 'the conversation (UUID)', conversationId)
    .action((id: string) =>
      withConversations(async (service) => {
        await service.archive(id);
        return `archived ${id}`;
      }),
    );

  conversations
    .command('restore')
    .description('move an archived conversation back to the active ones')
    .argument('<conversationId>', 'the conversation (UUID)', conversationId)
    .action((id: string) =>
      withConversations(async (service) => {
        await service.restoreAny(id);
        return `restored ${id}`;
      }),
    );
}
