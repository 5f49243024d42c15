import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { ChatStreamToAnthropic, chatCompletionToAnthropic, messagesRequestToChat } from '../translate';
import { messagesRequestText, quickTokenEstimate } from '../usage/token-counter';
import { usageFromAnthropic, usageFromOpenAi } from '../usage/token-usage';
import { type AnthropicMessagesRequest, type ChatCompletion, type ChatCompletionChunk } from '../wire';
import { freshFrom } from './content-filter';
import { type GatewayContext } from './gateway-context';
import { translated } from './model-call';
import { type ModelEndpoint, serveModelCall } from './model-endpoint';

export function forwardedOf(exchange: Exchange) {
  return { anthropicVersion: exchange.header('anthropic-version'), anthropicBeta: exchange.header('anthropic-beta') };
}

const messagesEndpoint: ModelEndpoint<AnthropicMessagesRequest, ChatCompletionChunk, ChatCompletion> = {
  flavor: 'messages',
  family: 'messages',
  requestOf: (body) => {
    if (!Array.isArray(body.messages)) {
      throw new GatewayError('invalid_request', 'invalid_messages', 'messages: an array is required');
    }
    return body as AnthropicMessagesRequest;
  },
  screened: (request) => ({
    all: () => messagesRequestText({ ...request, tools: undefined }).texts.join('\n'),
    fresh: () => {
      const fresh = request.messages.slice(freshFrom(request.messages));
      // Without an assistant message the whole request is new, system prompt included.
      return fresh.length === request.messages.length
        ? messagesRequestText({ ...request, tools: undefined }).texts.join('\n')
        : messagesRequestText({ model: request.model, messages: fresh }).texts.join('\n');
    },
  }),
  bodyOf: (request, deployment) =>
    deployment.provider.family === 'messages'
      ? JSON.stringify({ ...request, model: deployment.upstreamModel })
      : JSON.stringify(
          translated(() =>
            messagesRequestToChat(request, deployment.upstreamModel, {
              maxTokensField: deployment.provider.maxTokensField,
            }),
          ),
        ),
  forwarded: forwardedOf,
  requestText: (request) => messagesRequestText(request),
  dropUsageChunk: () => false,
  usageOf: usageFromAnthropic,
  streamTranslator: (request) =>
    new ChatStreamToAnthropic({
      model: request.model,
      estimatedInputTokens: quickTokenEstimate(messagesRequestText(request)),
    }),
  answerUsage: (completion) => ({ usage: usageFromOpenAi(completion.usage), reported: Boolean(completion.usage) }),
  answerFor: (completion, request) => chatCompletionToAnthropic(completion, request.model),
};

/** Passed through to messages-family providers, translated for chat-completions ones. */
export function messages(context: GatewayContext, exchange: Exchange, body: Record<string, unknown>): Promise<void> {
  return serveModelCall(messagesEndpoint, context, exchange, body);
}
