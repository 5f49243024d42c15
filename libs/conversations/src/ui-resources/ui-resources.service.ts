import { type ConversationOwner } from '../conversation-owner';
import { type ConversationsRepository } from '../conversations/conversations.repository';
import { type UiResourceHtmlResponse } from './ui-resources.dto';
import {
  ExternalUiGoneError,
  type ExternalUiSource,
  ExternalUiTooLargeError,
  ExternalUiUnavailableError,
} from './external-ui-source.port';
import { UI_HTML_MAX_BYTES } from './ui-resource-record';
import { UiResourcesError } from './ui-resources.errors';
import { type UiResourcesRepository } from './ui-resources.repository';

const tooLarge = () =>
  new UiResourcesError('html_too_large', `the UI resource's HTML is larger than ${UI_HTML_MAX_BYTES} bytes`);
const notFound = () =>
  new UiResourcesError('ui_resource_not_found', 'no UI resource with this toolCallId in the conversation');

/** `GET /v1/conversations/:conversationId/ui-resources/:toolCallId`: the HTML of an `html` UI resource. */
export class UiResourcesService {
  constructor(
    private readonly conversations: Pick<ConversationsRepository, 'modeOf'>,
    private readonly resources: UiResourcesRepository,
    /** Absent when no tool servers are wired into this process. */
    private readonly externalSource: () => ExternalUiSource | undefined,
  ) {}

  async html(owner: ConversationOwner, conversationId: string, toolCallId: string): Promise<UiResourceHtmlResponse> {
    // Archived conversations keep their resources.
    if (!(await this.conversations.modeOf(owner, conversationId))) {
      throw new UiResourcesError('conversation_not_found', 'conversation not found');
    }
    const row = await this.resources.find(owner, conversationId, toolCallId);
    // `data` resources travel inline in the stream: there is nothing to retrieve.
    if (!row || row.type !== 'html' || row.mimeType === null) throw notFound();
    if (row.size !== null && row.size > UI_HTML_MAX_BYTES) throw tooLarge();
    let html = row.html;
    if (html === null) {
      if (row.origin !== 'external' || row.uri === null) throw notFound();
      html = await this.readExternal(row.serverName, row.uri);
      await this.resources.storeHtml(conversationId, toolCallId, html);
      if (Buffer.byteLength(html, 'utf8') > UI_HTML_MAX_BYTES) throw tooLarge();
    }
    return { toolCallId, type: 'html', origin: row.origin, mimeType: row.mimeType, html };
  }

  private async readExternal(serverName: string, uri: string): Promise<string> {
    const source = this.externalSource();
    if (!source) throw new Error(`no external UI source to read ${uri} of tool server ${serverName}`);
    try {
      return (await source.read({ serverName, uri })).html;
    } catch (error) {
      if (error instanceof ExternalUiUnavailableError) {
        throw new UiResourcesError(
          'tool_server_unreachable',
          'the tool server of this UI resource could not be reached; try again',
        );
      }
      // Permanent: asking again gives the same answer, so not a 5xx that invites a retry.
      if (error instanceof ExternalUiGoneError) throw notFound();
      if (error instanceof ExternalUiTooLargeError) throw tooLarge();
      throw error;
    }
  }
}
