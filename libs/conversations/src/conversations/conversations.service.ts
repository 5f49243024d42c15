import { type PageQuery, toCursorPage } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { type BlobStore } from '@fed/storage';
import { type DataSource } from 'typeorm';
import {
  type ConversationListQuery,
  type ConversationListResponse,
  type ConversationResponse,
  conversationList,
  conversationPage,
  historyPage,
  messageList,
  toConversationResponse,
} from './conversations.dto';
import { type ConversationOwner, type ListOwner } from '../conversation-owner';
import { listsAgents } from '../list-owner.sql';
import { ConversationsError } from './conversations.errors';
import { ConversationsRepository } from './conversations.repository';
import { type HistoryPageResponse, toHistoryMessageResponse } from './history.dto';
import { HistoryRepository } from './history.repository';

const notFound = (message = 'conversation not found') => new ConversationsError('conversation_not_found', message);
const archived = (what: string) =>
  new ConversationsError('conversation_archived', `an archived conversation cannot be ${what}: restore it first`);
const processing = (what: string) =>
  new ConversationsError('conversation_processing', `the conversation is processing a turn and cannot be ${what} now`);

/** Conversation management of document 2: list, history, rename, delete, restore, archive. */
export class ConversationsService {
  private readonly now: () => Date;
  private readonly blobs?: { store: BlobStore; logger: Logger };

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly history: HistoryRepository,
    options: ConversationsServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.blobs = options.blobs;
  }

  /** The owner's conversations; in the Marketplace edition each names its `agentId`. */
  async list(owner: ListOwner, query: ConversationListQuery): Promise<ConversationListResponse> {
    const mode = query.mode ?? 'active';
    const params = conversationPage(mode, query);
    const title = query.title === '' ? undefined : query.title;
    const rows = await this.conversations.list(owner, mode, { title, page: params });
    const page = toCursorPage(rows, params, conversationList(mode), (row) => [row.updatedAtKey, row.id]);
    const named = listsAgents(owner);
    return {
      conversations: page.items.map((row) => ({
        ...toConversationResponse(row, mode === 'archive'),
        ...(named ? { agentId: row.agentId } : {}),
      })),
      hasMore: page.hasMore,
      ...(page.cursor ? { cursor: page.cursor } : {}),
    };
  }

  /** History of an active or archived conversation; the messages of an archived one carry `archived`. */
  async messages(owner: ConversationOwner, conversationId: string, query: PageQuery): Promise<HistoryPageResponse> {
    const page = historyPage(conversationId, query);
    const mode = await this.conversations.modeOf(owner, conversationId);
    if (!mode) throw notFound();
    const rows = await this.history.messages(owner.userId, conversationId, page);
    const result = toCursorPage(rows, page, messageList(conversationId), (message) => [message.seq]);
    const tasks = await this.history.tasksByMessage(
      conversationId,
      result.items.map((message) => message.id),
    );
    return {
      messages: result.items.map((message) =>
        toHistoryMessageResponse(message, tasks.get(message.id) ?? [], mode === 'archive'),
      ),
      hasMore: result.hasMore,
      ...(result.cursor ? { cursor: result.cursor } : {}),
    };
  }

  async rename(owner: ConversationOwner, conversationId: string, title: string): Promise<ConversationResponse> {
    const row = await this.conversations.rename(owner, conversationId, title, this.now());
    if (row) return toConversationResponse(row);
    throw (await this.conversations.modeOf(owner, conversationId)) === 'archive' ? archived('renamed') : notFound();
  }

  async delete(owner: ConversationOwner, conversationId: string): Promise<{ conversationId: string; deleted: true }> {
    const outcome = await this.conversations.delete(owner, conversationId);
    if (outcome === 'processing') throw processing('deleted');
    if (outcome === 'absent') {
      throw (await this.conversations.modeOf(owner, conversationId)) === 'archive' ? archived('deleted') : notFound();
    }
    await this.deleteBlobs(conversationId);
    return { conversationId, deleted: true };
  }

  /** Deletes a deleted conversation's deliverable blobs; their rows are gone, so a failure is only logged. */
  private async deleteBlobs(conversationId: string): Promise<void> {
    if (!this.blobs) return;
    const { store, logger } = this.blobs;
    try {
      for await (const blob of store.list(`deliverables/${conversationId}/`)) await store.delete(blob.key);
    } catch (error) {
      logger.warn({ err: error, conversationId }, 'deliverable blobs of a deleted conversation could not be deleted');
    }
  }

  /** The user's restore: 404 unless the conversation is in the user's archive. */
  async restore(owner: ConversationOwner, conversationId: string): Promise<{ conversationId: string; restored: true }> {
    if (!(await this.conversations.restore(conversationId, owner))) {
      throw notFound('conversation not found in the archive');
    }
    return { conversationId, restored: true };
  }

  /** An operator's archive (any owner's conversation); refused while a turn is processing. */
  async archive(conversationId: string): Promise<{ conversationId: string; archived: true }> {
    const outcome = await this.conversations.archive(conversationId, this.now());
    if (outcome === 'processing') throw processing('archived');
    if (outcome === 'absent') throw notFound('no active conversation has this id');
    return { conversationId, archived: true };
  }

  async restoreAny(conversationId: string): Promise<{ conversationId: string; restored: true }> {
    if (!(await this.conversations.restore(conversationId))) throw notFound('conversation not found in the archive');
    return { conversationId, restored: true };
  }

  /** Archives conversations idle over `days` days in batches; those with a turn in progress wait for a later run. */
  async archiveIdle(days: number, batchSize = 500, shouldStop: () => boolean = () => false): Promise<number> {
    if (days <= 0) return 0;
    const at = this.now();
    const cutoff = new Date(at.getTime() - days * 86_400_000);
    let total = 0;
    let after: [string, string] | null = null;
    for (;;) {
      const batch = await this.conversations.archiveIdleBatch(cutoff, at, batchSize, after);
      total += batch.archived;
      if (!batch.last || batch.examined < batchSize || shouldStop()) return total;
      after = batch.last;
    }
  }
}

export interface ConversationsServiceOptions {
  now?: () => Date;
  /** Where deliverables' bytes are (removed with their conversation); absent, they are left to the store. */
  blobs?: { store: BlobStore; logger: Logger };
}

export function conversationsServiceFor(
  dataSource: DataSource,
  options: ConversationsServiceOptions = {},
): ConversationsService {
  return new ConversationsService(new ConversationsRepository(dataSource), new HistoryRepository(dataSource), options);
}
