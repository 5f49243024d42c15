import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { LOGGER, type Logger, noteAuthz } from '@fed/observability';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { FAST_ROUTES, type FastRoutes, clientAddress } from '@fed/server';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { BruteForceProtection } from '../../brute-force/brute-force-protection';
import { type ClientThrottle } from '../../brute-force/client-throttle';
import { type ClientEntity, clientSecretMatches, isClientIdShaped, isPublicClient } from '@fed/identity/internal';
import { ClientCache } from '../client-cache';
import { type GrantHandler } from '../grants/grant-request';
import { OAuthError, isUnreachable, oauthErrors, readOAuthForm, sendOAuthError, sendOAuthJson } from '../oauth-http';
import { OIDC_BASE_PATH } from '../oidc-provider.factory';

/** The grant handlers by `grant_type`. */
export const TOKEN_GRANTS = Symbol.for('fed.identity.TokenGrants');
export type TokenGrants = Readonly<Record<'authorization_code' | 'client_credentials' | 'refresh_token', GrantHandler>>;

/**
 * `POST /federation/auth/v1/token`, served as a fast route of the host, ahead of Express and Nest:
 * it is the platform's hottest authenticated path (every service account asks here), and
 * oidc-provider has nothing to add at this endpoint once codes and refresh tokens are ours.
 * RFC 6749 throughout: a form body with each parameter once, client
 * authentication by `client_secret_basic` or `client_secret_post` (one of them): the secret
 * compared, then the brute-force throttle's one atomic step; or a public client's `client_id`
 * alone (`none`); then the grant.
 */
@Injectable()
export class TokenEndpoint implements OnModuleInit {
  private readonly throttle: ClientThrottle;

  constructor(
    private readonly clients: ClientCache,
    @Inject(TOKEN_GRANTS) private readonly grants: TokenGrants,
    bruteForce: BruteForceProtection,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(FAST_ROUTES) private readonly fastRoutes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.throttle = bruteForce.clientThrottle(1000);
  }

  onModuleInit(): void {
    this.fastRoutes.add('POST', `${OIDC_BASE_PATH}/token`, (req, res) => this.handle(req, res));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const basic = basicCredentials(req.headers.authorization);
    try {
      // Hand-parsed, not a ValidationPipe DTO: a fast route outside Nest (budget > 1,000 tokens/s; figures: README, Benchmarks).
      const form = await readOAuthForm(req);
      const client = await this.authenticate(req, form, basic);
      const grantType = form.grant_type;
      if (!grantType) throw oauthErrors.invalidRequest("missing required parameter 'grant_type'");
      const grant = this.grants[grantType as keyof TokenGrants];
      if (!Object.hasOwn(this.grants, grantType) || !grant) {
        throw oauthErrors.unsupportedGrantType(`unsupported grant_type: ${grantType.slice(0, 64)}`);
      }
      if (!client.grantTypes.includes(grantType as ClientEntity['grantTypes'][number])) {
        throw oauthErrors.unauthorizedClient('this client may not use this grant type');
      }
      const body = await grant({ client, params: form });
      sendOAuthJson(res, 200, body);
    } catch (error) {
      if (error instanceof OAuthError) {
        const challenge =
          error.status === 401 && basic ? { 'WWW-Authenticate': 'Basic realm="federation"' } : undefined;
        return sendOAuthError(res, error.status, error.error, error.description, challenge);
      }
      if (isUnreachable(error)) {
        this.logger.error({ err: error }, 'token endpoint: storage unreachable');
        return sendOAuthError(res, 502, 'bad_gateway', 'the authentication platform could not be reached');
      }
      this.logger.error({ err: error }, 'token endpoint failed');
      sendOAuthError(res, 500, 'server_error', 'the token could not be issued');
    }
  }

  /**
   * The client, or `invalid_client`: a wrong secret, or a right one from a client id and address pair that is
   * locked; a public client names itself with `client_id` alone (no secret to guess, so nothing to throttle:
   * PKCE, checked by the grant, is what proves it started the flow).
   */
  private async authenticate(
    req: IncomingMessage,
    form: Record<string, string>,
    basic: { id: string; secret: string } | undefined,
  ): Promise<ClientEntity> {
    // The access log's decision until the client is through: every refusal here is the client's.
    noteAuthz(req, 'deny', 'invalid_client');
    if (req.headers.authorization && !basic)
      throw oauthErrors.invalidClient('the Authorization header must be HTTP Basic');
    if (basic && form.client_secret !== undefined) {
      throw oauthErrors.invalidRequest('use one client authentication method, not both');
    }
    if (basic && form.client_id !== undefined && form.client_id !== basic.id) {
      throw oauthErrors.invalidRequest('client_id does not match the authenticated client');
    }
    const clientId = basic?.id ?? form.client_id;
    const secret = basic?.secret ?? form.client_secret;
    if (!clientId) throw oauthErrors.invalidClient('client authentication is required');
    const source = clientAddress(req, this.config.http.trustProxyHops);
    const client = isClientIdShaped(clientId) ? await this.clients.find(clientId, source) : null;
    if (!secret) {
      if (!client || !isPublicClient(client) || !client.enabled) {
        throw oauthErrors.invalidClient('client authentication is required');
      }
      // A public client belongs to no tenant; the tokens it gets carry their user's.
      noteAuthz(req, 'allow', 'public_client', null);
      return client;
    }
    if (client && isPublicClient(client)) {
      throw oauthErrors.invalidClient('this is a public client: send client_id alone, without a secret');
    }
    const matches = clientSecretMatches(client, secret) && client?.enabled === true;
    if (!(await this.throttle.accepts(clientId, source, matches)) || !client) throw oauthErrors.invalidClient();
    // The access log's row belongs to the client's tenant (an anonymous sign-in page's does not).
    noteAuthz(req, 'allow', 'client_secret', client.tenantId);
    return client;
  }
}

/** The credentials of an HTTP Basic `Authorization` header (RFC 6749 2.3.1: form-encoded), if any. */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | undefined {
  const match = /^basic +([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const unform = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}
