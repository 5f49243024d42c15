import { isUuid } from '@fed/contracts';
import { ownedBy } from '@fed/persistence';
import { type DataSource } from 'typeorm';
import { type ConversationOwner } from '../conversation-owner';
import { type DeliverableBlobRow } from './deliverables.dto';

/** Deliverable rows, always read through their owner. */
export class DeliverablesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The file, if the owner has the conversation; one statement, so a conversation deleted meanwhile shows no file. */
  async find(
    owner: ConversationOwner,
    conversationId: string,
    messageId: string,
    filepath: string,
  ): Promise<{ conversation: boolean; file: DeliverableBlobRow | null }> {
    const parameters: unknown[] = [conversationId, messageId, filepath];
    const owned = ownedBy(owner, parameters);
    const rows = (await this.dataSource.query(
      `WITH "owned" AS (
         SELECT 1 FROM "conversations"."conversations"
          WHERE "id" = $1 AND ${owned}
         UNION ALL
         SELECT 1 FROM "conversations"."archived_conversations"
          WHERE "id" = $1 AND ${owned}
       )
       SELECT EXISTS (SELECT 1 FROM "owned") AS "conversation", d."id", d."filename", d."mime_type" AS "mimeType",
              d."size", d."blob_key" AS "blobKey"
         FROM (SELECT 1) AS "one"
         LEFT JOIN "conversations"."deliverables" AS d
           ON d."conversation_id" = $1 AND d."message_id" = $2 AND d."filepath" = $3
          AND ${ownedBy(owner, parameters, 'd')}
          AND EXISTS (SELECT 1 FROM "owned")`,
      parameters,
    )) as ({ conversation: boolean } & { [K in keyof DeliverableBlobRow]: DeliverableBlobRow[K] | null })[];
    const row = rows[0];
    if (!row?.conversation) return { conversation: false, file: null };
    if (row.id === null || row.blobKey === null || row.filename === null || row.size === null) {
      return { conversation: true, file: null };
    }
    return {
      conversation: true,
      file: { id: row.id, filename: row.filename, mimeType: row.mimeType, size: row.size, blobKey: row.blobKey },
    };
  }

  /**
   * Which of `keys` a deliverable row names, in one query. `blob_key` has no index: the key's message id narrows the
   * lookup through the (message_id, filepath) index; a key of another shape is looked up by itself.
   */
  async referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const messageIds = keys.map((key) => key.split('/')[2]);
    const byMessage = messageIds.every((id) => isUuid(id));
    const rows = (await this.dataSource.query(
      byMessage
        ? `SELECT "blob_key" FROM "conversations"."deliverables" WHERE "message_id" = ANY($2::uuid[]) AND "blob_key" = ANY($1::text[])`
        : `SELECT "blob_key" FROM "conversations"."deliverables" WHERE "blob_key" = ANY($1::text[])`,
      byMessage ? [[...keys], [...new Set(messageIds)]] : [[...keys]],
    )) as { blob_key: string }[];
    return new Set(rows.map((row) => row.blob_key));
  }
}
