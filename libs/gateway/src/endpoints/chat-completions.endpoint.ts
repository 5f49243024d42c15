import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { readAnswer, relaySameFamilyStream, relayTranslatedStream, writeJson } from '../relay/relay';
import { type Deployment } from '../routing/routing-table';
import { AnthropicStreamToChat, anthropicMessageToChat, chatRequestToAnthropic } from '../translate';
import { chatRequestText, countRequestTokens } from '../usage/token-counter';
import { usageFromAnthropic, usageFromOpenAi } from '../usage/token-usage';
import { type AnthropicMessage, type AnthropicStreamEvent, type ChatCompletionRequest, type ChatUsage } from '../wire';
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

/** POST /llm/v1/chat/completions: passed through to chat-completions providers, translated for messages ones. */
export async function chatCompletions(
  context: GatewayContext,
  exchange: Exchange,
  body: Record<string, unknown>,
): Promise<void> {
  exchange.flavor = 'chat_completions';
  const model = routeModel(context, exchange, body);
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new GatewayError('invalid_request', 'invalid_messages', 'messages must be a non-empty array');
  }
  const request = body as ChatCompletionRequest;
  const stream = request.stream === true;
  exchange.stream = stream;
  screenContent(context, exchange, {
    all: () => chatRequestText({ messages: request.messages }).texts.join('\n'),
    fresh: () => chatRequestText({ messages: request.messages.slice(freshFrom(request.messages)) }).texts.join('\n'),
  });
  const clientWantsUsage = request.stream_options?.include_usage === true;
  const bodyOf = (deployment: Deployment): string => {
    if (deployment.provider.family === 'messages') {
      return JSON.stringify(
        translated(() =>
          chatRequestToAnthropic(request, deployment.upstreamModel, {
            defaultMaxTokens: context.routing().defaultMaxTokens,
          }),
        ),
      );
    }
    // Usage is asked for even when the client did not (its chunk is then dropped on the way back).
    const streamOptions = stream ? { stream_options: { ...request.stream_options, include_usage: true } } : {};
    return JSON.stringify({ ...request, model: deployment.upstreamModel, ...streamOptions });
  };
  // Every deployment's body is made once, before anything is sent: an untranslatable request fails first.
  const bodyFor = bodiesFor(model.deployments, bodyOf);

  const { deployment, answer } = await callProvider(context, exchange, model.deployments, 'chat', bodyFor);
  const estimatedInput = () => countRequestTokens(context.tokens, chatRequestText(request));
  if (deployment.provider.family === 'messages') {
    if (stream) {
      const translator = new AnthropicStreamToChat({ model: request.model, includeUsage: clientWantsUsage });
      const outcome = await relayTranslatedStream<AnthropicStreamEvent>(exchange, answer, 'messages', translator);
      await settleStreamUsage(exchange, outcome, estimatedInput);
      return;
    }
    const message = JSON.parse((await readAnswer(answer)).toString('utf8')) as AnthropicMessage;
    settleUsage(exchange, usageFromAnthropic(message.usage), message.usage ? 'reported' : 'estimated');
    writeJson(exchange.res, JSON.stringify(anthropicMessageToChat(message, request.model)));
    return;
  }
  if (stream) {
    const outcome = await relaySameFamilyStream(exchange, answer, 'chat', { dropUsageChunk: !clientWantsUsage });
    await settleStreamUsage(exchange, outcome, estimatedInput);
    return;
  }
  await passJsonThrough(exchange, answer, (usage) => usageFromOpenAi(usage as unknown as ChatUsage), estimatedInput);
}
