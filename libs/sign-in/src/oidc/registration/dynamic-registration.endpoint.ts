import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { COUNTERS, type Counters } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { FAST_ROUTES, type FastRoutes, clientAddress, readJsonBody } from '@fed/server';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { throttleKey } from '../../brute-force/throttle-key';
import { ClientRepository } from '@fed/identity/internal';
import { isUnreachable, sendOAuthError, sendOAuthJson } from '../oauth-http';
import { OIDC_BASE_PATH } from '../oidc-provider.factory';
import { RegistrationError, checkClientMetadata, selfRegisteredClient } from './client-metadata';

export const REGISTRATION_PATH = `${OIDC_BASE_PATH}/register`;

const BODY_LIMIT_BYTES = 16 * 1024;
const BODY_BOUNDS = { maxDepth: 4, maxContainers: 64 };
const WINDOW_SECONDS = 3600;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * RFC 7591, only while OIDC_DYNAMIC_REGISTRATION is on. Anyone may register, so the result is bounded: a public
 * mcp:all/a2a:all client shown as unverified, rate-limited per address in one atomic step before the body is
 * read. No RFC 7592 management: a client needing other metadata registers again.
 */
@Injectable()
export class DynamicRegistrationEndpoint implements OnModuleInit {
  constructor(
    private readonly clients: ClientRepository,
    @Inject(COUNTERS) private readonly counters: Counters,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(FAST_ROUTES) private readonly fastRoutes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.registration.dynamic)
      this.fastRoutes.add('POST', REGISTRATION_PATH, (req, res) => this.handle(req, res));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const source = clientAddress(req, this.config.http.trustProxyHops);
      const key = throttleKey('registration', 'dynamic', source);
      const limit = this.config.registration.perAddressPerHour;
      const taken = await this.counters.take(key, limit, WINDOW_SECONDS);
      if (!taken.taken) {
        req.resume();
        return sendOAuthError(
          res,
          429,
          'too_many_requests',
          `at most ${limit} registrations per hour from one address`,
          {
            'Retry-After': String(Math.max(1, taken.resetInSeconds)),
          },
        );
      }
      if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
        req.resume();
        return sendOAuthError(res, 400, 'invalid_client_metadata', 'the body must be application/json');
      }
      const body = await readJsonBody(req, BODY_LIMIT_BYTES, BODY_BOUNDS);
      switch (body.kind) {
        case 'aborted':
          res.destroy();
          return;
        case 'too_large':
          return sendOAuthError(
            res,
            413,
            'invalid_client_metadata',
            `the registration request is larger than ${BODY_LIMIT_BYTES} bytes`,
            { Connection: 'close' },
          );
        case 'not_json':
          return sendOAuthError(res, 400, 'invalid_client_metadata', 'the body is not valid JSON');
        case 'too_complex':
          return sendOAuthError(res, 400, 'invalid_client_metadata', body.reason);
        case 'json':
          break;
      }
      const firstRedirect = (body.value as { redirect_uris?: unknown } | null)?.redirect_uris;
      const metadata = checkClientMetadata(body.value, defaultName(firstRedirect));
      const at = new Date();
      const client = selfRegisteredClient(`dcr-${randomUUID()}`, 'dynamic', metadata, at, null);
      await this.clients.insert(client);
      this.logger.info(
        { clientId: client.clientId, redirectUris: client.redirectUris },
        'client registered dynamically',
      );
      sendOAuthJson(res, 201, {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(at.getTime() / 1000),
        client_name: client.name,
        redirect_uris: client.redirectUris,
        grant_types: client.grantTypes,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: client.scopes.join(' '),
      });
    } catch (error) {
      if (error instanceof RegistrationError) return sendOAuthError(res, 400, error.code, error.description);
      if (isUnreachable(error)) {
        this.logger.error({ err: error }, 'dynamic registration: storage unreachable');
        return sendOAuthError(res, 502, 'bad_gateway', 'the authentication platform could not be reached');
      }
      this.logger.error({ err: error }, 'dynamic registration failed');
      sendOAuthError(res, 500, 'server_error', 'the client could not be registered');
    }
  }
}

/** Named by where it sends users back (the consent page calls it unverified). */
function defaultName(redirectUris: unknown): string {
  const first = Array.isArray(redirectUris) && typeof redirectUris[0] === 'string' ? redirectUris[0] : '';
  try {
    return new URL(first).host || 'unnamed client';
  } catch {
    return 'unnamed client';
  }
}
