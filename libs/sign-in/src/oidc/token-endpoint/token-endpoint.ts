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

export const TOKEN_GRANTS = Symbol.for('fed.identity.TokenGrants');
export type TokenGrants = Readonly<Record<'authorization_code' | 'client_credentials' | 'refresh_token', GrantHandler>>;

/**
 * A fast route ahead of Express and Nest: the platform's hottest authenticated path, where oidc-provider adds
 * nothing once codes and refresh tokens are ours. Secrets are compared, then throttled in one atomic step.
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
      // Hand-parsed, not a ValidationPipe DTO: a fast route outside Nest (see docs/benchmarks.md).
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

  /** A public client has no secret to guess, so no throttle: PKCE, checked by the grant, proves it started the flow. */
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
    // The throttle counts wrong secrets only: a disabled client's right one is refused without counting, so a
    // service that retries while disabled is not locked out once enabled again.
    const matches = clientSecretMatches(client, secret);
    if (!(await this.throttle.accepts(clientId, source, matches)) || !client?.enabled)
      throw oauthErrors.invalidClient();
    // The row belongs to the client's tenant.
    noteAuthz(req, 'allow', 'client_secret', client.tenantId);
    return client;
  }
}

/** RFC 6749 2.3.1: form-encoded. */
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
