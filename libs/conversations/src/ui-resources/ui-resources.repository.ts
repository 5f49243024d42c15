import { ownedBy } from '@fed/persistence';
import { type DataSource } from 'typeorm';
import { type ConversationOwner } from '../conversation-owner';
import { type UiResourceEntity } from './ui-resource.entity';

/** What retrieval reads of a resource. */
export type StoredUiResource = Pick<
  UiResourceEntity,
  'type' | 'origin' | 'mimeType' | 'uri' | 'serverName' | 'html' | 'size'
>;

/** UI resource rows, always read through their owner. */
export class UiResourcesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(owner: ConversationOwner, conversationId: string, toolCallId: string): Promise<StoredUiResource | null> {
    const parameters: unknown[] = [conversationId, toolCallId];
    const rows = (await this.dataSource.query(
      `SELECT "type", "origin", "mime_type" AS "mimeType", "uri", "server_name" AS "serverName", "html", "size"
         FROM "conversations"."ui_resources"
        WHERE "conversation_id" = $1 AND "tool_call_id" = $2 AND ${ownedBy(owner, parameters)}`,
      parameters,
    )) as StoredUiResource[];
    return rows[0] ?? null;
  }

  /** Keeps HTML read again from its tool server; an HTML stored meanwhile is kept. */
  async storeHtml(conversationId: string, toolCallId: string, html: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "conversations"."ui_resources" SET "html" = $3, "size" = $4
        WHERE "conversation_id" = $1 AND "tool_call_id" = $2 AND "html" IS NULL`,
      [conversationId, toolCallId, html, Buffer.byteLength(html, 'utf8')],
    );
  }
}
