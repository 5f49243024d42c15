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

/**
 * What a model endpoint (chat completions, messages) does its own way; the flow around it is
 * serveModelCall's. A provider of the endpoint's family gets the request passed through, one of
 * the other family gets it translated, and its answer is translated back.
 */
export interface ModelEndpoint<Request extends { model: string; stream?: boolean }, OtherEvent, OtherAnswer> {
  readonly flavor: ApiFlavor;
  readonly family: ApiFamily;
  /** The request, once its messages are checked (the spec's 400 otherwise). */
  requestOf(body: Record<string, unknown>): Request;
  /** What the content filter reads: the whole request, and what is new since the last answer. */
  screened(request: Request): { all: () => string; fresh: () => string };
  /** The provider's body. */
  bodyOf(request: Request, deployment: Deployment, context: GatewayContext): string;
  /** The client's headers that reach a provider of the endpoint's family unchanged. */
  forwarded(exchange: Exchange): ForwardedHeaders;
  /** The request's text, to count its input tokens when the provider reports none. */
  requestText(request: Request): RequestText;
  /** A stream of the endpoint's family: whether its usage chunk is left out (the client did not ask for it). */
  dropUsageChunk(request: Request): boolean;
  /** A JSON answer of the endpoint's family: its usage object as token usage. */
  usageOf(usage: Record<string, unknown>): TokenUsage;
  /** The other family's stream, translated for the client. */
  streamTranslator(request: Request): StreamTranslator<OtherEvent>;
  /** The other family's JSON answer: its usage (reported: the provider gave it), then the client's answer. */
  answerUsage(answer: OtherAnswer): { usage: TokenUsage; reported: boolean };
  answerFor(answer: OtherAnswer, request: Request): unknown;
}

/** The family a provider answers in: a demo provider answers as chat completions. */
const familyOf = (deployment: Deployment): ApiFamily =>
  deployment.provider.family === 'messages' ? 'messages' : 'chat';

/** A model call of `endpoint`'s family: routed, screened, sent, and its answer relayed and billed. */
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
  // Every deployment's body is made once, before anything is sent: an untranslatable request fails first.
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
