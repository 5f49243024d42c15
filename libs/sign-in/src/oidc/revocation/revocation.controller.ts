import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { type Request, type Response } from 'express';
import { BruteForceProtection } from '../../brute-force/brute-force-protection';
import { type ClientThrottle } from '../../brute-force/client-throttle';
import { ClientRepository, ClientsService, isClientIdShaped, isPublicClient } from '@fed/identity/internal';
import { LocalTokenVerifier, TokenRejected } from '../local-token-verifier';
import { OAuthError, isUnreachable, readOAuthForm, sendOAuthError } from '../oauth-http';
import { RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';
import { basicCredentials } from '../token-endpoint/token-endpoint';
import { TokenRevocations } from './token-revocations';

/**
 * RFC 7009: always 200 with an empty body, valid token or not; another client's token is left alone (2.1).
 * Access tokens are revoked everywhere within a second (Signals); a refresh token takes its family. A public
 * client names itself by `client_id` alone, and its lookup never fetches a metadata document.
 */
@Controller('federation/auth/v1/revoke')
export class RevocationController {
  private readonly throttle: ClientThrottle;

  constructor(
    private readonly clients: ClientsService,
    private readonly registry: ClientRepository,
    private readonly verifier: LocalTokenVerifier,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly revocations: TokenRevocations,
    bruteForce: BruteForceProtection,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.throttle = bruteForce.clientThrottle();
  }

  @Public()
  @Post()
  async revoke(@Req() req: Request, @Res() res: Response): Promise<void> {
    // Not a DTO: the form is read as the token endpoint reads it, and a body DTO cannot see the Authorization header.
    let body: Record<string, string>;
    try {
      body = await readOAuthForm(req);
    } catch (error) {
      if (error instanceof OAuthError) return sendOAuthError(res, error.status, error.error, error.description);
      throw error;
    }
    const basic = basicCredentials(req.headers.authorization);
    if (req.headers.authorization && !basic) {
      return sendOAuthError(res, 400, 'invalid_request', 'the Authorization header must be HTTP Basic');
    }
    const clientId = basic?.id ?? body.client_id;
    const clientSecret = basic?.secret ?? body.client_secret;
    if (typeof clientId !== 'string' || !clientId) {
      return sendOAuthError(res, 400, 'invalid_request', 'client_id is required');
    }
    if (typeof body.token !== 'string' || body.token === '') {
      return sendOAuthError(res, 400, 'invalid_request', "missing required parameter 'token'");
    }
    const refuseClient = (description = 'client authentication failed') =>
      sendOAuthError(
        res,
        401,
        'invalid_client',
        description,
        basic ? { 'WWW-Authenticate': 'Basic realm="federation"' } : {},
      );
    try {
      const registered = isClientIdShaped(clientId) ? await this.registry.find(clientId) : null;
      const isPublic = registered !== null && isPublicClient(registered);
      if (isPublic && clientSecret !== undefined) {
        // Not counted by the throttle: a public client has no secret to guess.
        return refuseClient('this is a public client: send client_id alone, without a secret');
      }
      if (isPublic) {
        if (!registered.enabled) return refuseClient();
        await this.revokeFor(registered.clientId, body.token);
        res.status(200).set('Cache-Control', 'no-store').end();
        return;
      }
      if (typeof clientSecret !== 'string' || !clientSecret) {
        return sendOAuthError(
          res,
          400,
          'invalid_request',
          'client_id and client_secret are required (only a public client sends client_id alone)',
        );
      }
      const client = await this.clients.authenticate(clientId, clientSecret);
      if (!(await this.throttle.accepts(clientId, req.ip ?? 'unknown', client !== null)) || !client) {
        return refuseClient();
      }
      await this.revokeFor(client.clientId, body.token);
      res.status(200).set('Cache-Control', 'no-store').end();
    } catch (error) {
      if (isUnreachable(error)) {
        this.logger.error({ err: error }, 'revocation: storage unreachable');
        return sendOAuthError(res, 502, 'bad_gateway', 'the revocation could not be recorded');
      }
      throw error;
    }
  }

  private async revokeFor(clientId: string, token: string): Promise<void> {
    if (token.split('.').length === 3) {
      try {
        const claims = await this.verifier.verify(token, this.config.auth.issuer, { ignoreExpiry: true });
        if (claims.azp === clientId && typeof claims.jti === 'string' && typeof claims.exp === 'number') {
          await this.revocations.revokeAccessToken(claims.jti, new Date(claims.exp * 1000));
        }
      } catch (error) {
        if (!(error instanceof TokenRejected)) throw error;
      }
      return;
    }
    const family = await this.refreshTokens.familyOf(token, clientId);
    if (family) await this.revocations.revokeFamily(family);
  }
}
