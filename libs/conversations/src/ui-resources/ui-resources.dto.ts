import { withCode } from '@fed/server';
import { ValidateBy } from 'class-validator';
import { IsConversationId } from '../conversations/conversations.dto';
import { isToolCallId } from './ui-resource-record';

/** The retrieval path; declaration order is the spec's: a bad conversationId is reported before a bad toolCallId. */
export class UiResourceParams {
  @IsConversationId()
  conversationId!: string;

  @ValidateBy(
    { name: 'isToolCallId', validator: { validate: (value: unknown) => isToolCallId(value) } },
    withCode('invalid_parameter', 'toolCallId must be 1-128 letters, digits, hyphens or underscores'),
  )
  toolCallId!: string;
}

/** 200 of the retrieval: the HTML as JSON, never as a document. */
export interface UiResourceHtmlResponse {
  toolCallId: string;
  type: 'html';
  origin: 'first-party' | 'external';
  mimeType: string;
  html: string;
}
