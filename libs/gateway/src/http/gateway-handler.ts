import { type AccessTokenVerifier, REVOKED_TOKEN } from '@fed/auth';
import { ApiError, GATEWAY_SCOPE, errorEnvelope } from '@fed/contracts';
import { noteAuthz } from '@fed/observability';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type BlockList } from 'node:net';
import { type ApiKeyCache } from '../access/api-key-cache';
import { CLIENT_TENANT_HEADER, type GatewayPrincipal, addressAllowed, onBehalfOf } from '../access/gateway-principal';
import { chatCompletions } from '../endpoints/chat-completions.endpoint';
import { type GatewayContext } from '../endpoints/gateway-context';
import { messages } from '../endpoints/messages.endpoint';
import { countTokens, embeddings, listModels, responses, retrieveModel } from '../endpoints/other.endpoints';
import { type ApiFamily, GatewayError, writeError } from './gateway-error';
import { Exchange } from './exchange';
import { parseJsonObject, readBody } from './request-body';

export const GATEWAY_PREFIX = '/llm/v1/';

const MODELS_PATH = '/llm/v1/models';
const ONE_MODEL_PREFIX = `${MODELS_PATH}/`;

type ModelEndpoint = (context: GatewayContext, exchange: Exchange, body: Record<string, unknown>) => Promise<void>;

const postEndpoints: Record<string, { family: ApiFamily; run: ModelEndpoint }> = {
  '/llm/v1/chat/completions': { family: 'chat', run: chatCompletions },
  '/llm/v1/responses': { family: 'chat', run: responses },
  '/llm/v1/embeddings': { family: 'chat', run: embeddings },
  '/llm/v1/messages': { family: 'messages', run: messages },
  '/llm/v1/messages/count_tokens': { family: 'messages', run: countTokens },
};

export function gatewayRouteLabel(path: string): string {
  if (path.startsWith(ONE_MODEL_PREFIX)) return `${ONE_MODEL_PREFIX}{model}`;
  return path in postEndpoints || path === MODELS_PATH ? path : '/llm/v1/*';
}

export interface GatewayHandlerSettings {
  keyPrefix: string;
  serviceName: string;
  networks: BlockList | null;
  /** Behind trusted proxies. */
  clientAddress(req: IncomingMessage): string;
  /**
   * The Marketplace edition: only virtual keys (the agent's) are served; everything else gets the 404 of
   * a path that does not exist, so its callers see no gateway (document 3).
   */
  virtualKeysOnly?: boolean;
}

/** Served ahead of Express and Nest as a fast route of the host. */
export class GatewayHandler {
  private readonly browserOptIn: string;

  constructor(
    private readonly context: GatewayContext,
    private readonly keys: ApiKeyCache,
    private readonly tokens: AccessTokenVerifier,
    private readonly settings: GatewayHandlerSettings,
  ) {
    this.browserOptIn = `x-${settings.serviceName}-allow-browser-access`;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (this.settings.virtualKeysOnly && !(await this.presentsVirtualKey(req))) {
      // The host's own 404 and no log row: nothing tells a caller of this edition a gateway is there.
      noteAuthz(req, 'deny', 'not_in_edition');
      const body = JSON.stringify(errorEnvelope('not_found', `Cannot ${req.method} ${url.slice(0, 2000)}`));
      res.writeHead(404, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    const family = familyOf(req, path);
    const exchange = new Exchange(req, res, family);
    try {
      if (req.headers.origin !== undefined && !this.corsAllows(req, res)) return;
      const endpoint = req.method === 'POST' ? postEndpoints[path] : undefined;
      const isModels = req.method === 'GET' && path === MODELS_PATH;
      const oneModel = req.method === 'GET' ? modelOfPath(path) : undefined;
      if (!endpoint && !isModels && oneModel === undefined) {
        throw new GatewayError(
          'not_found',
          'not_found',
          `${req.method} ${path.slice(0, 200)} is not a gateway endpoint`,
        );
      }
      const address = this.settings.clientAddress(req);
      if (this.settings.networks && !addressAllowed(this.settings.networks, address)) {
        noteAuthz(req, 'deny', 'network_not_allowed');
        throw new GatewayError('permission', 'network_not_allowed', 'requests from this network are not allowed');
      }
      const principal = onBehalfOf(await this.authenticate(req, family), exchange.header(CLIENT_TENANT_HEADER));
      exchange.principal = principal;
      if (principal.networks && !addressAllowed(principal.networks, address)) {
        noteAuthz(req, 'deny', 'network_not_allowed');
        throw new GatewayError('permission', 'network_not_allowed', 'this key may not be used from this network');
      }
      noteAuthz(req, 'allow', principal.kind === 'client' ? 'access_token' : 'api_key', principal.tenantId);
      if (isModels) {
        listModels(this.context, exchange);
        return;
      }
      if (oneModel !== undefined) {
        retrieveModel(this.context, exchange, oneModel);
        return;
      }
      if (family === 'messages' && !exchange.header('anthropic-version')) {
        throw new GatewayError('invalid_request', 'version_required', 'the anthropic-version header is required');
      }
      const body = parseJsonObject(await readBody(req));
      await (endpoint as { run: ModelEndpoint }).run(this.context, exchange, body);
    } catch (error) {
      this.fail(exchange, error);
    } finally {
      // Written once usage is settled and the answer has left (or the client has).
      if (res.closed) this.finish(exchange);
      else res.once('close', () => this.finish(exchange));
    }
  }

  /** Browsers must opt in (the key is then visible to the page's users), in the preflight and the request. */
  private corsAllows(req: IncomingMessage, res: ServerResponse): boolean {
    const optIns = ['anthropic-dangerous-direct-browser-access', this.browserOptIn];
    if (req.method === 'OPTIONS') {
      const asked = String(req.headers['access-control-request-headers'] ?? '')
        .toLowerCase()
        .split(',')
        .map((name) => name.trim());
      if (!optIns.some((name) => asked.includes(name))) {
        throw new GatewayError('permission', 'browser_access_not_allowed', browserRefusal(this.browserOptIn));
      }
      res.statusCode = 204;
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
      res.setHeader('access-control-allow-headers', asked.filter((name) => /^[a-z0-9-]{1,100}$/.test(name)).join(', '));
      res.setHeader('access-control-max-age', '600');
      res.end();
      return false;
    }
    if (!optIns.some((name) => req.headers[name] === 'true')) {
      throw new GatewayError('permission', 'browser_access_not_allowed', browserRefusal(this.browserOptIn));
    }
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-expose-headers', 'x-request-id, retry-after, x-should-retry');
    return true;
  }

  private async presentsVirtualKey(req: IncomingMessage): Promise<boolean> {
    const presented = presentedCredential(req);
    return (
      presented !== undefined &&
      presented.startsWith(this.settings.keyPrefix) &&
      presented.length <= 200 &&
      (await this.keys.find(presented)) !== null
    );
  }

  private async authenticate(req: IncomingMessage, family: ApiFamily): Promise<GatewayPrincipal> {
    const presented = presentedCredential(req);
    const missing = family === 'messages' ? 'an API key in x-api-key' : 'an API key in Authorization: Bearer';
    if (!presented) {
      noteAuthz(req, 'deny', 'missing_api_key');
      throw new GatewayError('authentication', 'missing_api_key', `${missing} is required`);
    }
    if (presented.startsWith(this.settings.keyPrefix)) {
      const principal = presented.length <= 200 ? await this.keys.find(presented) : null;
      if (!principal) {
        noteAuthz(req, 'deny', 'invalid_api_key');
        throw new GatewayError('authentication', 'invalid_api_key', 'the API key is not valid');
      }
      return principal;
    }
    if (presented.split('.').length === 3) {
      try {
        const token = await this.tokens.verify(presented);
        if (!token.isServiceAccount) {
          noteAuthz(req, 'deny', 'invalid_token');
          throw new GatewayError(
            'authentication',
            'invalid_token',
            'only client-credentials tokens may call the gateway',
          );
        }
        // The gateway serves only tokens given its scope (users:read does not pay for models); 403: the
        // token is valid, its entitlement is not enough (document 3).
        if (!token.scopes.has(GATEWAY_SCOPE)) {
          noteAuthz(req, 'deny', 'insufficient_scope');
          throw new GatewayError(
            'permission',
            'insufficient_scope',
            `this client-credentials token lacks the ${GATEWAY_SCOPE} scope the model gateway requires; an operator gives it to the client (its realm file's scopes, or platformctl clients create --scope ${GATEWAY_SCOPE})`,
          );
        }
        return tokenPrincipal(token.clientId ?? token.subject, token.tenant?.id ?? null);
      } catch (error) {
        if (error instanceof ApiError) {
          noteAuthz(req, 'deny', error.message === REVOKED_TOKEN ? 'revoked_token' : 'invalid_token');
          throw new GatewayError('authentication', 'invalid_token', error.message);
        }
        throw error;
      }
    }
    noteAuthz(req, 'deny', 'invalid_api_key');
    throw new GatewayError('authentication', 'invalid_api_key', 'the API key is not valid');
  }

  private fail(exchange: Exchange, error: unknown): void {
    if (exchange.clientAborted) return;
    let failure: GatewayError;
    // parseJsonObject bounds depth, so no body here is nested too deeply to re-serialize.
    if (error instanceof GatewayError) failure = error;
    else {
      this.context.logger.error(
        { err: error, requestId: exchange.res.getHeader('x-request-id') },
        'gateway request failed',
      );
      failure = new GatewayError('internal', 'internal_error', 'the gateway failed to handle the request');
    }
    exchange.failure = failure;
    writeError(exchange.res, exchange.family, failure);
  }

  private finish(exchange: Exchange): void {
    if (exchange.flavor === null && exchange.failure === null && exchange.res.statusCode === 204) return;
    this.context.log.append(exchange.logRow());
    const { principal, usage } = exchange;
    if (principal && (usage || exchange.costUsd)) {
      const tokens = usage ? usage.inputTokens + usage.outputTokens : 0;
      this.context.limits.record(principal, tokens, exchange.costUsd);
      // Usage exists only for a routed model.
      if (exchange.model && exchange.modelName) {
        const key = principal.virtualKeyId ?? principal.label;
        this.context.metrics.billed(exchange.modelName, key, usage, exchange.costUsd);
      }
    }
  }
}

function browserRefusal(optIn: string): string {
  return `browser requests are refused unless they send anthropic-dangerous-direct-browser-access: true or ${optIn}: true (the key is then exposed to the browser)`;
}

function tokenPrincipal(clientId: string, tenantId: string | null): GatewayPrincipal {
  return {
    kind: 'client',
    virtualKeyId: null,
    label: clientId,
    tenantId,
    allowedModels: null,
    rpmLimit: null,
    tpmLimit: null,
    dailyBudgetMicroUsd: null,
    networks: null,
    expiresAt: null,
  };
}

/** For the model list, the calling SDK's family: Anthropic's always sends `anthropic-version`. */
function familyOf(req: IncomingMessage, path: string): ApiFamily {
  if (path.startsWith('/llm/v1/messages')) return 'messages';
  const models = path === MODELS_PATH || path.startsWith(ONE_MODEL_PREFIX);
  return models && req.headers['anthropic-version'] !== undefined ? 'messages' : 'chat';
}

/** The SDKs percent-encode the name, so `/` arrives as `%2F`; undefined for an undecodable name. */
function modelOfPath(path: string): string | undefined {
  if (!path.startsWith(ONE_MODEL_PREFIX) || path.length === ONE_MODEL_PREFIX.length) return undefined;
  try {
    return decodeURIComponent(path.slice(ONE_MODEL_PREFIX.length));
  } catch {
    return undefined;
  }
}

/** `Authorization: Bearer` (OpenAI clients) or `x-api-key` (Anthropic's). */
function presentedCredential(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const bearer = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
  const apiKeyHeader = req.headers['x-api-key'];
  return bearer ?? (typeof apiKeyHeader === 'string' ? apiKeyHeader.trim() : undefined);
}
