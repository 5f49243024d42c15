import { ApiError, isUuid } from '@fed/contracts';
import { type ConversationsService, conversationEntities, conversationsServiceFor } from '@fed/conversations';
import { type Command, InvalidArgumentError } from 'commander';
import { withEntities } from './database';

function conversationId(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('a conversation id is a UUID');
  return value.toLowerCase();
}

/** Runs `work` on the service; a refusal (not found, processing) is reported with its code, exit 1. */
async function withConversations(work: (conversations: ConversationsService) => Promise<string>): Promise<void> {
  try {
    const done = await withEntities(conversationEntities, (dataSource) => work(conversationsServiceFor(dataSource)));
    process.stdout.write(`${done}\n`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    process.stderr.write(`refused (${error.code}): ${error.message}\n`);
    process.exitCode = 1;
  }
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
