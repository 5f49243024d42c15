import { type GatewayPrincipal } from '../access/gateway-principal';
import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { type StreamOutcome, readAnswer, upstreamFailure, writeJson } from '../relay/relay';
import { usageObjectIn } from '../relay/stream-observer';
import { type Deployment, type RoutedModel } from '../routing/routing-table';
import { TranslationError } from '../translate';
import { costOf } from '../usage/cost';
import { listPrice } from '../usage/price-table';
import { type TokenUsage, ZERO_USAGE } from '../usage/token-usage';
import { UpstreamBusyError } from '../upstream/connection-slots';
import { type DispatchResult, UpstreamUnreachableError, dispatch } from '../upstream/dispatch';
import {
  type ForwardedHeaders,
  type UpstreamAnswer,
  type UpstreamEndpoint,
  headerOf,
} from '../upstream/upstream-client';
import { type GatewayContext } from './gateway-context';

/** Streams free their connections as they end. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** The spec's 400 when missing or unavailable, 403 when not this key's. */
export function routeModel(context: GatewayContext, exchange: Exchange, body: Record<string, unknown>): RoutedModel {
  const name = body.model;
  if (typeof name !== 'string' || name.length === 0) {
    throw new GatewayError('invalid_request', 'model_required', 'model is required: see GET /llm/v1/models');
  }
  exchange.modelName = name.slice(0, 200);
  const model = context.routing().resolve(name);
  if (!model) {
    throw new GatewayError(
      'invalid_request',
      'model_not_found',
      `the model ${JSON.stringify(name.slice(0, 200))} is not available: see GET /llm/v1/models`,
    );
  }
  exchange.model = model;
  if (!modelAllowed(exchange.principal as GatewayPrincipal, model)) {
    throw new GatewayError(
      'permission',
      'model_not_allowed',
      `this key may not call the model ${JSON.stringify(name)}`,
    );
  }
  return model;
}

export function modelAllowed(principal: GatewayPrincipal, model: RoutedModel): boolean {
  const allowed = principal.allowedModels;
  return allowed === null || allowed.has(model.name) || model.aliases.some((alias) => allowed.has(alias));
}

/** 501 in the family's format when none can serve the endpoint. */
export function deploymentsFor(model: RoutedModel, endpoint: UpstreamEndpoint): readonly Deployment[] {
  const able = model.deployments.filter(({ provider }) => {
    if (endpoint === 'embeddings') return provider.embeddings;
    if (endpoint === 'responses') return provider.responses && provider.family === 'chat';
    return true;
  });
  if (able.length === 0) {
    const path = endpoint === 'embeddings' ? '/embeddings' : '/responses';
    throw new GatewayError(
      'not_implemented',
      'unsupported_endpoint',
      `the provider of ${model.name} does not offer ${path}`,
    );
  }
  return able;
}

/** Made once before anything is sent, reused by every attempt. */
export function bodiesFor(deployments: readonly Deployment[], bodyOf: (deployment: Deployment) => string) {
  const bodies = new Map(deployments.map((deployment) => [deployment, bodyOf(deployment)]));
  return (deployment: Deployment): string => bodies.get(deployment) ?? bodyOf(deployment);
}

/** A request that cannot be translated is the client's 400. */
export function translated<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof TranslationError)
      throw new GatewayError('invalid_request', 'unsupported_parameter', error.message);
    throw error;
  }
}

/** A provider error reaches the client in its family; none answering is a 502. */
export async function callProvider(
  context: GatewayContext,
  exchange: Exchange,
  deployments: readonly Deployment[],
  endpoint: UpstreamEndpoint,
  bodyFor: (deployment: Deployment) => string,
  forwarded: ForwardedHeaders = {},
): Promise<DispatchResult> {
  await context.limits.admit(exchange.principal as GatewayPrincipal);
  exchange.beforeDispatch?.();
  let result: DispatchResult;
  try {
    result = await dispatch(
      context.upstream,
      deployments,
      endpoint,
      bodyFor,
      forwarded,
      context.routing().retries,
      exchange.abort.signal,
    );
  } catch (error) {
    if (error instanceof UpstreamUnreachableError) {
      exchange.attempts = error.attempts;
      exchange.deployment = error.lastDeployment ?? null;
      if (error.cause instanceof UpstreamBusyError) {
        throw new GatewayError('overloaded', 'upstream_busy', `${error.cause.message}; try again shortly`, {
          'retry-after': String(BUSY_RETRY_AFTER_SECONDS),
        });
      }
      throw new GatewayError('upstream', 'upstream_unreachable', 'no provider of this model could be reached');
    }
    throw error;
  }
  exchange.attempts = result.attempts;
  exchange.deployment = result.deployment;
  if (result.answer.status >= 300) throw await upstreamFailure(result.answer);
  return result;
}

/** The log row and the key's counters read them. */
export function settleUsage(exchange: Exchange, usage: TokenUsage, status: Exchange['usageStatus']): void {
  exchange.usage = usage;
  exchange.usageStatus = status;
  const model = exchange.model;
  const deployment = exchange.deployment;
  const pricing = model?.pricing ?? (deployment ? listPrice(deployment.upstreamModel) : null);
  exchange.costUsd = pricing ? costOf(usage, pricing) : null;
}

/**
 * The provider's counts when reported; otherwise its input count if given, else ours of the request,
 * and output estimated at about four characters per token.
 */
export async function settleStreamUsage(
  exchange: Exchange,
  outcome: StreamOutcome,
  estimatedInput: () => Promise<number>,
): Promise<void> {
  if (outcome.reported && !exchange.clientAborted && !outcome.broken) {
    settleUsage(exchange, outcome.reported, 'reported');
    return;
  }
  if (outcome.reported) {
    settleUsage(exchange, outcome.reported, 'partial');
    return;
  }
  const usage: TokenUsage = {
    ...ZERO_USAGE,
    inputTokens: outcome.reportedInput ?? (await estimatedInput()),
    outputTokens: Math.ceil(outcome.outputChars / 4),
  };
  settleUsage(exchange, usage, exchange.clientAborted || outcome.broken ? 'partial' : 'estimated');
}

/** Usage read from its bytes, or counted from the request when the provider reports none. */
export async function passJsonThrough(
  exchange: Exchange,
  answer: UpstreamAnswer,
  usageOf: (usage: Record<string, unknown>) => TokenUsage,
  estimatedInput: () => Promise<number>,
): Promise<void> {
  const text = await readAnswer(answer);
  const usage = usageObjectIn(text);
  if (usage) settleUsage(exchange, usageOf(usage), 'reported');
  else
    await settleStreamUsage(
      exchange,
      { reported: null, reportedInput: null, outputChars: 0, broken: false },
      estimatedInput,
    );
  writeJson(exchange.res, text, headerOf(answer, 'content-type'));
}
