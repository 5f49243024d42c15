import { type ApiFamily, GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { readAnswer, relaySameFamilyStream, writeJson } from '../relay/relay';
import { usageFromResponses } from '../relay/stream-observer';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { chatRequestText, countRequestTokens, messagesRequestText } from '../usage/token-counter';
import { usageFromOpenAi } from '../usage/token-usage';
import { type RoutedModel } from '../routing/routing-table';
import {
  type AnthropicCountTokensRequest,
  type AnthropicModel,
  type ChatUsage,
  type ModelList,
  type OpenAiModel,
} from '../wire';
import { headerOf } from '../upstream/upstream-client';
import { type GatewayContext } from './gateway-context';
import { forwardedOf } from './messages.endpoint';
import {
  callProvider,
  deploymentsFor,
  passJsonThrough,
  modelAllowed,
  routeModel,
  settleStreamUsage,
} from './model-call';

export async function embeddings(context: GatewayContext, exchange: Exchange, body: Record<string, unknown>) {
  exchange.flavor = 'embeddings';
  const model = routeModel(context, exchange, body);
  if (body.input === undefined) throw new GatewayError('invalid_request', 'invalid_input', 'input is required');
  const deployments = deploymentsFor(model, 'embeddings');
  const { answer } = await callProvider(context, exchange, deployments, 'embeddings', (deployment) =>
    JSON.stringify({ ...body, model: deployment.upstreamModel }),
  );
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const estimatedInput = () =>
    countRequestTokens(context.tokens, {
      texts: inputs.map((input) => (typeof input === 'string' ? input : JSON.stringify(input))),
      fixedTokens: 0,
    });
  await passJsonThrough(exchange, answer, (usage) => usageFromOpenAi(usage as unknown as ChatUsage), estimatedInput);
}

/** Only to chat-completions providers that have the Responses API (501 otherwise). */
export async function responses(context: GatewayContext, exchange: Exchange, body: Record<string, unknown>) {
  exchange.flavor = 'responses';
  const model = routeModel(context, exchange, body);
  const stream = body.stream === true;
  exchange.stream = stream;
  const deployments = deploymentsFor(model, 'responses');
  const { answer } = await callProvider(context, exchange, deployments, 'responses', (deployment) =>
    JSON.stringify({ ...body, model: deployment.upstreamModel }),
  );
  const estimatedInput = () => {
    const input = typeof body.input === 'string' ? body.input : JSON.stringify(body.input ?? '');
    return countRequestTokens(context.tokens, chatRequestText({ messages: [{ role: 'user', content: input }] }));
  };
  if (stream) {
    const outcome = await relaySameFamilyStream(exchange, answer, 'responses', { dropUsageChunk: false });
    await settleStreamUsage(exchange, outcome, estimatedInput);
    return;
  }
  await passJsonThrough(exchange, answer, usageFromResponses, estimatedInput);
}

/** Providers of other families have no such API: counted here with o200k, an estimate for non-OpenAI models. */
export async function countTokens(context: GatewayContext, exchange: Exchange, body: Record<string, unknown>) {
  exchange.flavor = 'count_tokens';
  const model = routeModel(context, exchange, body);
  if (!Array.isArray(body.messages)) {
    throw new GatewayError('invalid_request', 'invalid_messages', 'messages: an array is required');
  }
  const remote = model.deployments.filter((d) => d.provider.family === 'messages');
  if (remote.length > 0) {
    const { answer } = await callProvider(
      context,
      exchange,
      remote,
      'count_tokens',
      (deployment) => JSON.stringify({ ...body, model: deployment.upstreamModel }),
      forwardedOf(exchange),
    );
    writeJson(exchange.res, await readAnswer(answer), headerOf(answer, 'content-type'));
    return;
  }
  await context.limits.admit(exchange.principal as GatewayPrincipal);
  exchange.deployment = model.deployments[0] ?? null;
  const inputTokens = await countRequestTokens(
    context.tokens,
    messagesRequestText(body as unknown as AnthropicCountTokensRequest),
  );
  writeJson(exchange.res, JSON.stringify({ input_tokens: inputTokens }));
}

function visibleModels(context: GatewayContext, principal: GatewayPrincipal): RoutedModel[] {
  return context
    .routing()
    .models.filter((model) => modelAllowed(principal, model))
    .flatMap((model) => [model, ...model.aliases.map((alias) => ({ ...model, name: alias }))]);
}

function modelObject(model: RoutedModel, family: ApiFamily): AnthropicModel | OpenAiModel {
  return family === 'messages'
    ? { type: 'model', id: model.name, display_name: model.name, created_at: '1970-01-01T00:00:00Z' }
    : { id: model.name, object: 'model', created: 0, owned_by: model.deployments[0]?.provider.name ?? 'federation' };
}

/** A client that sends `anthropic-version` gets the messages family's page. */
export function listModels(context: GatewayContext, exchange: Exchange): void {
  exchange.flavor = 'models';
  const models = visibleModels(context, exchange.principal as GatewayPrincipal);
  if (exchange.family === 'messages') {
    const data = models.map((model) => modelObject(model, 'messages'));
    writeJson(
      exchange.res,
      JSON.stringify({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }),
    );
    return;
  }
  const list: ModelList = { object: 'list', data: models.map((model) => modelObject(model, 'chat') as OpenAiModel) };
  writeJson(exchange.res, JSON.stringify(list));
}

/** A model this caller may not use is as unknown as one that does not exist. */
export function retrieveModel(context: GatewayContext, exchange: Exchange, name: string): void {
  exchange.flavor = 'models';
  exchange.modelName = name.slice(0, 200);
  const model = visibleModels(context, exchange.principal as GatewayPrincipal).find((each) => each.name === name);
  if (!model) {
    const message = `the model ${JSON.stringify(name.slice(0, 200))} does not exist or this key may not use it: see GET /llm/v1/models`;
    throw exchange.family === 'messages'
      ? new GatewayError('not_found', 'model_not_found', message)
      : new GatewayError('invalid_request', 'model_not_found', message, {}, 404);
  }
  writeJson(exchange.res, JSON.stringify(modelObject(model, exchange.family)));
}
