import { type ApiFamily } from '../http/gateway-error';
import { type ApiFlavor, type Exchange } from '../http/exchange';
import {
  type StreamTranslator,
  readAnswer,
  relaySameFamilyStream,
  relayTranslatedStream,
  writeJson,
} from '../relay/relay';
import { type Deployment } from '../routing/routing-table';
import { type RequestText, countRequestTokens } from '../usage/token-counter';
import { type TokenUsage } from '../usage/token-usage';
import { type ForwardedHeaders } from '../upstream/upstream-client';
import { screenContent } from './content-filter';
import { type GatewayContext } from './gateway-context';
import { bodiesFor, callProvider, passJsonThrough, routeModel, settleStreamUsage, settleUsage } from './model-call';

/** What chat completions and messages each do their own way; the flow around it is serveModelCall's. */
export interface ModelEndpoint<Request extends { model: string; stream?: boolean }, OtherEvent, OtherAnswer> {
  readonly flavor: ApiFlavor;
  readonly family: ApiFamily;
  /** The spec's 400 when its messages are invalid. */
  requestOf(body: Record<string, unknown>): Request;
  screened(request: Request): { all: () => string; fresh: () => string };
  bodyOf(request: Request, deployment: Deployment, context: GatewayContext): string;
  forwarded(exchange: Exchange): ForwardedHeaders;
  /** To count input tokens when the provider reports none. */
  requestText(request: Request): RequestText;
  /** True when the client did not ask for the usage chunk. */
  dropUsageChunk(request: Request): boolean;
  usageOf(usage: Record<string, unknown>): TokenUsage;
  streamTranslator(request: Request): StreamTranslator<OtherEvent>;
  /** `reported`: the provider gave the usage. */
  answerUsage(answer: OtherAnswer): { usage: TokenUsage; reported: boolean };
  answerFor(answer: OtherAnswer, request: Request): unknown;
}

/** A demo provider answers as chat completions. */
const familyOf = (deployment: Deployment): ApiFamily =>
  deployment.provider.family === 'messages' ? 'messages' : 'chat';

export async function serveModelCall<Request extends { model: string; stream?: boolean }, OtherEvent, OtherAnswer>(
  endpoint: ModelEndpoint<Request, OtherEvent, OtherAnswer>,
  context: GatewayContext,
  exchange: Exchange,
  body: Record<string, unknown>,
): Promise<void> {
  exchange.flavor = endpoint.flavor;
  const model = routeModel(context, exchange, body);
  const request = endpoint.requestOf(body);
  const stream = request.stream === true;
  exchange.stream = stream;
  screenContent(context, exchange, endpoint.screened(request));
  // An untranslatable request fails before anything is sent.
  const bodyFor = bodiesFor(model.deployments, (deployment) => endpoint.bodyOf(request, deployment, context));

  const { deployment, answer } = await callProvider(
    context,
    exchange,
    model.deployments,
    endpoint.family,
    bodyFor,
    endpoint.forwarded(exchange),
  );
  const estimatedInput = () => countRequestTokens(context.tokens, endpoint.requestText(request));
  const upstreamFamily = familyOf(deployment);
  if (upstreamFamily !== endpoint.family) {
    if (stream) {
      const translator = endpoint.streamTranslator(request);
      const outcome = await relayTranslatedStream(exchange, answer, upstreamFamily, translator);
      await settleStreamUsage(exchange, outcome, estimatedInput);
      return;
    }
    const other = JSON.parse((await readAnswer(answer)).toString('utf8')) as OtherAnswer;
    const { usage, reported } = endpoint.answerUsage(other);
    settleUsage(exchange, usage, reported ? 'reported' : 'estimated');
    writeJson(exchange.res, JSON.stringify(endpoint.answerFor(other, request)));
    return;
  }
  if (stream) {
    const outcome = await relaySameFamilyStream(exchange, answer, endpoint.family, {
      dropUsageChunk: endpoint.dropUsageChunk(request),
    });
    await settleStreamUsage(exchange, outcome, estimatedInput);
    return;
  }
  await passJsonThrough(exchange, answer, endpoint.usageOf, estimatedInput);
}
