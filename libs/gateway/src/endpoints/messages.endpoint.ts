import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { readAnswer, relaySameFamilyStream, relayTranslatedStream, writeJson } from '../relay/relay';
import { type Deployment } from '../routing/routing-table';
import { ChatStreamToAnthropic, chatCompletionToAnthropic, messagesRequestToChat } from '../translate';
import { countRequestTokens, messagesRequestText, quickTokenEstimate } from '../usage/token-counter';
import { usageFromAnthropic, usageFromOpenAi } from '../usage/token-usage';
import { type AnthropicMessagesRequest, type ChatCompletion, type ChatCompletionChunk } from '../wire';
import { freshFrom, screenContent } from './content-filter';
import { type GatewayContext } from './gateway-context';
import {
  bodiesFor,
  callProvider,
  passJsonThrough,
  routeModel,
  settleStreamUsage,
  settleUsage,
  translated,
} from './model-call';

/** The headers a messages-family client sends that reach a messages-family provider unchanged. */
export function forwardedOf(exchange: Exchange) {
  return { anthropicVersion: exchange.header('anthropic-version'), anthropicBeta: exchange.header('anthropic-beta') };
}

/** POST /llm/v1/messages: passed through to messages-family providers, translated for chat-completions ones. */
export async function messages(
  context: GatewayContext,
  exchange: Exchange,
  body: Record<string, unknown>,
): Promise<void> {
  exchange.flavor = 'messages';
  const model = routeModel(context, exchange, body);
  if (!Array.isArray(body.messages)) {
    throw new GatewayError('invalid_request', 'invalid_messages', 'messages: an array is required');
  }
  const request = body as AnthropicMessagesRequest;
  const stream = request.stream === true;
  exchange.stream = stream;
  screenContent(context, exchange, {
    all: () => messagesRequestText({ ...request, tools: undefined }).texts.join('\n'),
    fresh: () => {
      const fresh = request.messages.slice(freshFrom(request.messages));
      // Without an assistant message the whole request is new, system prompt included.
      return fresh.length === request.messages.length
        ? messagesRequestText({ ...request, tools: undefined }).texts.join('\n')
        : messagesRequestText({ model: request.model, messages: fresh }).texts.join('\n');
    },
  });
  const bodyOf = (deployment: Deployment): string =>
    deployment.provider.family === 'messages'
      ? JSON.stringify({ ...request, model: deployment.upstreamModel })
      : JSON.stringify(
          translated(() =>
            messagesRequestToChat(request, deployment.upstreamModel, {
              maxTokensField: deployment.provider.maxTokensField,
            }),
          ),
        );
  const bodyFor = bodiesFor(model.deployments, bodyOf);

  const { deployment, answer } = await callProvider(
    context,
    exchange,
    model.deployments,
    'messages',
    bodyFor,
    forwardedOf(exchange),
  );
  const estimatedInput = () => countRequestTokens(context.tokens, messagesRequestText(request));
  if (deployment.provider.family !== 'messages') {
    if (stream) {
      const translator = new ChatStreamToAnthropic({
        model: request.model,
        estimatedInputTokens: quickTokenEstimate(messagesRequestText(request)),
      });
      const outcome = await relayTranslatedStream<ChatCompletionChunk>(exchange, answer, 'chat', translator);
      await settleStreamUsage(exchange, outcome, estimatedInput);
      return;
    }
    const completion = JSON.parse((await readAnswer(answer)).toString('utf8')) as ChatCompletion;
    settleUsage(exchange, usageFromOpenAi(completion.usage), completion.usage ? 'reported' : 'estimated');
    writeJson(exchange.res, JSON.stringify(chatCompletionToAnthropic(completion, request.model)));
    return;
  }
  if (stream) {
    const outcome = await relaySameFamilyStream(exchange, answer, 'messages', { dropUsageChunk: false });
    await settleStreamUsage(exchange, outcome, estimatedInput);
    return;
  }
  await passJsonThrough(exchange, answer, usageFromAnthropic, estimatedInput);
}
