import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { COUNTERS, type Counters } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { type Request, type Response } from 'express';
import { ClientThrottle } from '../brute-force/client-throttle';
import { ClientRepository } from '../clients/client.repository';
import { ClientsService } from '../clients/clients.service';
import { isUnreachable } from './oauth-http';
import { TokenIssuer } from './token-issuer';

/** The spec's Marketplace token response: no refresh token, no ID token. */
export interface MarketplaceTokenResponse {
  success: true;
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/**
 * `POST /api/v1/auth/external-service-token` (Marketplace edition only; 404 otherwise): a service
 * account's id and secret in a JSON body for a client-credentials access token. Errors keep the
 * `success` flag of the answer: `{"success": false, "error", "error_description"}` with the status
 * of the token endpoint's table (400 invalid_request, 401 invalid_client, 400 unauthorized_client,
 * 502 bad_gateway).
 */
@Controller('api/v1/auth')
export class MarketplaceTokenController {
  private readonly throttle: ClientThrottle;

  constructor(
    private readonly clientsService: ClientsService,
    private readonly clients: ClientRepository,
    private readonly issuer: TokenIssuer,
    @Inject(COUNTERS) counters: Counters,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.throttle = new ClientThrottle(counters);
  }

  @Public()
  @Post('external-service-token')
  @HttpCode(200)
  async token(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (this.config.edition !== 'marketplace') throw new ApiError('not_found', 'no such route');
    const fail = (status: number, error: string, description: string) =>
      void res
        .status(status)
        .set('Cache-Control', 'no-store')
        .json({ success: false, error, error_description: description });
    if (!req.is('application/json')) return fail(400, 'invalid_request', 'the body must be application/json');
    const body = req.body as { client_id?: unknown; client_secret?: unknown } | undefined;
    const clientId = body?.client_id;
    const clientSecret = body?.client_secret;
    if (typeof clientId !== 'string' || typeof clientSecret !== 'string' || !clientId || !clientSecret) {
      return fail(400, 'invalid_request', 'client_id and client_secret (strings) are required');
    }
    try {
      const authenticated = await this.clientsService.authenticate(clientId, clientSecret);
      if (!(await this.throttle.accepts(clientId, req.ip ?? 'unknown', authenticated !== null))) {
        return fail(401, 'invalid_client', 'client authentication failed');
      }
      const client = await this.clients.find(clientId);
      if (!client?.grantTypes.includes('client_credentials')) {
        return fail(400, 'unauthorized_client', 'the client is not a service account');
      }
      if (!client.tenant?.enabled) return fail(400, 'unauthorized_client', "the service account's tenant is disabled");
      const scope = client.scopes.join(' ');
      const tokens = await this.issuer.forServiceAccount({ ...client, tenant: client.tenant }, scope);
      const answer: MarketplaceTokenResponse = {
        success: true,
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: this.issuer.tokenTtlSeconds,
        scope,
      };
      res.status(200).set('Cache-Control', 'no-store').json(answer);
    } catch (error) {
      if (isUnreachable(error)) return fail(502, 'bad_gateway', 'the authentication platform could not be reached');
      throw error;
    }
  }
}
