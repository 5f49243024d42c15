import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { AnthropicStreamToChat, anthropicMessageToChat, chatRequestToAnthropic } from '../translate';
import { chatRequestText } from '../usage/token-counter';
import { usageFromAnthropic, usageFromOpenAi } from '../usage/token-usage';
import { type AnthropicMessage, type AnthropicStreamEvent, type ChatCompletionRequest, type ChatUsage } from '../wire';
import { freshFrom } from './content-filter';
import { type GatewayContext } from './gateway-context';
import { translated } from './model-call';
import { type ModelEndpoint, serveModelCall } from './model-endpoint';

const chatCompletionsEndpoint: ModelEndpoint<ChatCompletionRequest, AnthropicStreamEvent, AnthropicMessage> = {
  flavor: 'chat_completions',
  family: 'chat',
  requestOf: (body) => {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw new GatewayError('invalid_request', 'invalid_messages', 'messages must be a non-empty array');
    }
    return body as ChatCompletionRequest;
  },
  screened: (request) => ({
    all: () => chatRequestText({ messages: request.messages }).texts.join('\n'),
    fresh: () => chatRequestText({ messages: request.messages.slice(freshFrom(request.messages)) }).texts.join('\n'),
  }),
  bodyOf: (request, deployment, context) => {
    if (deployment.provider.family === 'messages') {
      return JSON.stringify(
        translated(() =>
          chatRequestToAnthropic(request, deployment.upstreamModel, {
            defaultMaxTokens: context.routing().defaultMaxTokens,
          }),
        ),
      );
    }
    // Usage is always asked for; its chunk is dropped on the way back if the client did not ask.
    const streamOptions =
      request.stream === true ? { stream_options: { ...request.stream_options, include_usage: true } } : {};
    return JSON.stringify({ ...request, model: deployment.upstreamModel, ...streamOptions });
  },
  forwarded: () => ({}),
  requestText: (request) => chatRequestText(request),
  dropUsageChunk: (request) => !clientWantsUsage(request),
  usageOf: (usage) => usageFromOpenAi(usage as unknown as ChatUsage),
  streamTranslator: (request) =>
    new AnthropicStreamToChat({ model: request.model, includeUsage: clientWantsUsage(request) }),
  answerUsage: (message) => ({ usage: usageFromAnthropic(message.usage), reported: Boolean(message.usage) }),
  answerFor: (message, request) => anthropicMessageToChat(message, request.model),
};

function clientWantsUsage(request: ChatCompletionRequest): boolean {
  return request.stream_options?.include_usage === true;
}

/** Passed through to chat-completions providers, translated for messages ones. */
export function chatCompletions(
  context: GatewayContext,
  exchange: Exchange,
  body: Record<string, unknown>,
): Promise<void> {
  return serveModelCall(chatCompletionsEndpoint, context, exchange, body);
}
