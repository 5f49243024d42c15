import { ANTHROPIC_MODEL_LIST, countTokens, message, messageStream } from './anthropic-answers';
import type { Exchange } from './exchange';
import {
  MODEL_LIST,
  chatCompletion,
  chatCompletionStream,
  embeddings,
  response,
  responseStream,
} from './openai-answers';
import { type JsonObject, isObject } from './prompt-text';
import { anthropicError, providerError } from './provider-errors';

type Route = 'chat' | 'messages' | 'countTokens' | 'embeddings' | 'responses';

const AZURE_DEPLOYMENTS = '/openai/deployments/';

// By suffix, so a gateway's prefixes (`/v1`, Azure's deployments) reach the same answers.
function postRoute(pathname: string): Route | undefined {
  if (pathname.endsWith('/chat/completions')) return 'chat';
  if (pathname.endsWith('/messages')) return 'messages';
  if (pathname.endsWith('/messages/count_tokens')) return 'countTokens';
  if (pathname.endsWith('/embeddings')) return 'embeddings';
  if (pathname.endsWith('/responses')) return 'responses';
  return undefined;
}

/** Azure names it in the path instead. */
function modelOf(body: JsonObject, pathname: string): string {
  if (typeof body.model === 'string') return body.model;
  if (pathname.startsWith(AZURE_DEPLOYMENTS)) {
    const end = pathname.indexOf('/', AZURE_DEPLOYMENTS.length);
    if (end > AZURE_DEPLOYMENTS.length) return decodeURIComponent(pathname.slice(AZURE_DEPLOYMENTS.length, end));
  }
  return 'mock-model';
}

/** Deterministic, and what the official SDKs parse. */
export function answerByDefault(exchange: Exchange, serial: number): void {
  const { request, pathname } = exchange;
  const anthropicClient = request.headers['anthropic-version'] !== undefined;
  if (request.method === 'GET' && pathname.endsWith('/models')) {
    return exchange.sendJson(200, anthropicClient ? ANTHROPIC_MODEL_LIST : MODEL_LIST);
  }
  const route = request.method === 'POST' ? postRoute(pathname) : undefined;
  if (route === undefined) {
    return exchange.sendJson(404, providerError(404, anthropicClient, `No answer for ${request.method} ${pathname}`));
  }

  const anthropicRoute = route === 'messages' || route === 'countTokens';
  // Anthropic refuses a request without it, so a gateway that drops the header fails here too.
  if (anthropicRoute && !anthropicClient) {
    return exchange.sendJson(400, anthropicError(400, 'anthropic-version: header is required'));
  }
  const body = request.json;
  if (!isObject(body)) {
    return exchange.sendJson(400, providerError(400, anthropicRoute, 'The request body must be a JSON object.'));
  }

  const model = modelOf(body, pathname);
  const stream = body.stream === true;
  switch (route) {
    case 'chat':
      return stream
        ? exchange.sendStream(chatCompletionStream(body, model, serial))
        : exchange.sendJson(200, chatCompletion(body, model, serial));
    case 'messages':
      return stream
        ? exchange.sendStream(messageStream(body, model, serial))
        : exchange.sendJson(200, message(body, model, serial));
    case 'countTokens':
      return exchange.sendJson(200, countTokens(body));
    case 'embeddings':
      return exchange.sendJson(200, embeddings(body, model));
    case 'responses':
      return stream
        ? exchange.sendStream(responseStream(body, model, serial))
        : exchange.sendJson(200, response(body, model, serial));
  }
}
