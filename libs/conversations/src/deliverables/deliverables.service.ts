import { type BlobStore, sweepUnreferencedBlobs } from '@fed/storage';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type ConversationOwner } from '../conversation-owner';
import { sendBlob } from '../files/blob-response';
import { type DeliverableContentQuery } from './deliverables.dto';
import { DeliverablesError } from './deliverables.errors';
import { type DeliverablesRepository } from './deliverables.repository';

/** Where deliverables live in the blob store: `deliverables/<conversationId>/<messageId>/<deliverableId>`. */
export const DELIVERABLES_PREFIX = 'deliverables/';

/** The artifact proxy: a deliverable's bytes for the owner of its conversation. */
export class DeliverablesService {
  constructor(
    private readonly deliverables: DeliverablesRepository,
    private readonly blobs: BlobStore,
  ) {}

  async send(
    owner: ConversationOwner,
    conversationId: string,
    query: DeliverableContentQuery,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const found = await this.deliverables.find(owner, conversationId, query.messageId, query.filepath);
    if (!found.conversation) throw new DeliverablesError('conversation_not_found', 'conversation not found');
    if (!found.file) throw new DeliverablesError('deliverable_not_found', 'no such deliverable in this conversation');
    const file = found.file;
    await sendBlob(request, response, {
      store: this.blobs,
      key: file.blobKey,
      bytes: Number(file.size),
      mimeType: file.mimeType ?? 'application/octet-stream',
      filename: file.filename,
      // A rewrite of the path gets a new id, so the tag changes with the bytes.
      etag: file.id,
    });
  }

  /** Deletes blobs under `deliverables/` older than `olderThan` that no row names (a turn died, a delete failed). */
  sweepOrphanBlobs(olderThan: Date, shouldStop?: () => boolean): Promise<number> {
    return sweepUnreferencedBlobs(this.blobs, DELIVERABLES_PREFIX, {
      olderThan,
      shouldStop,
      referenced: (keys) => this.deliverables.referencedBlobKeys(keys),
    });
  }
}
