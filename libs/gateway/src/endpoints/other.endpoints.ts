import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { readAnswer, relaySameFamilyStream, writeJson } from '../relay/relay';
import { usageFromResponses } from '../relay/stream-observer';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { chatRequestText, countRequestTokens, messagesRequestText } from '../usage/token-counter';
import { usageFromOpenAi } from '../usage/token-usage';
import { type AnthropicCountTokensRequest, type ChatUsage, type ModelList } from '../wire';
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

/** POST /llm/v1/embeddings: to providers that have it (501 otherwise), passed through. */
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

/** POST /llm/v1/responses: to chat-completions providers that have the Responses API (501 otherwise). */
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

/**
 * POST /llm/v1/messages/count_tokens: asked of a messages-family provider; for others (which have no
 * such API) counted here with the o200k vocabulary, an estimate for non-OpenAI models.
 */
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

/**
 * GET /llm/v1/models: the models (names and aliases) this caller may use, in the chat-completions
 * family's list; a client that sends `anthropic-version` gets the messages family's page instead.
 */
export function listModels(context: GatewayContext, exchange: Exchange): void {
  exchange.flavor = 'models';
  const principal = exchange.principal as GatewayPrincipal;
  const ids = context
    .routing()
    .models.filter((model) => modelAllowed(principal, model))
    .flatMap((model) => [model, ...model.aliases.map((alias) => ({ ...model, name: alias }))]);
  if (exchange.header('anthropic-version')) {
    const data = ids.map((model) => ({
      type: 'model',
      id: model.name,
      display_name: model.name,
      created_at: '1970-01-01T00:00:00Z',
    }));
    writeJson(
      exchange.res,
      JSON.stringify({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }),
    );
    return;
  }
  const list: ModelList = {
    object: 'list',
    data: ids.map((model) => ({
      id: model.name,
      object: 'model',
      created: 0,
      owned_by: model.deployments[0]?.provider.name ?? 'federation',
    })),
  };
  writeJson(exchange.res, JSON.stringify(list));
}
