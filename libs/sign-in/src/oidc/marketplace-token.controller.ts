import {
  type ArgumentsHost,
  Body,
  type CanActivate,
  Catch,
  Controller,
  type ExceptionFilter,
  HttpCode,
  Inject,
  Injectable,
  Post,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { Public } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { BODY_ERROR_FORMATS, type BodyErrorFormats } from '@fed/server';
import { type Request, type Response } from 'express';
import { BruteForceProtection } from '../brute-force/brute-force-protection';
import { type ClientThrottle } from '../brute-force/client-throttle';
import { ClientRepository, ClientsService } from '@fed/identity/internal';
import { MarketplaceTokenRequest, type MarketplaceTokenResponse } from './marketplace-token.dto';
import { serviceAccountTenant } from './grants/client-credentials.grant';
import { OAuthError, isUnreachable, oauthErrors } from './oauth-http';
import { TokenIssuer } from './token-issuer';

const MARKETPLACE_TOKEN_PATH = 'api/v1/auth/external-service-token';

@Injectable()
class MarketplaceEditionOnly implements CanActivate {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  canActivate(): boolean {
    if (this.config.edition !== 'marketplace') throw new ApiError('not_found', 'no such route');
    return true;
  }
}

/** The endpoint's error format: the token endpoint's codes, with the answer's `success` flag. */
@Catch(OAuthError)
class MarketplaceErrorFilter implements ExceptionFilter {
  catch(error: OAuthError, host: ArgumentsHost): void {
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(error.status)
      .set('Cache-Control', 'no-store')
      .json({ success: false, error: error.error, error_description: error.description });
  }
}

/**
 * Marketplace edition only (404 otherwise). Errors keep the answer's `success` flag, with the token endpoint's
 * statuses: `{"success": false, "error", "error_description"}`.
 */
@Controller('api/v1/auth')
@UseGuards(MarketplaceEditionOnly)
@UseFilters(MarketplaceErrorFilter)
export class MarketplaceTokenController {
  private readonly throttle: ClientThrottle;

  constructor(
    private readonly clientsService: ClientsService,
    private readonly clients: ClientRepository,
    private readonly issuer: TokenIssuer,
    bruteForce: BruteForceProtection,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Inject(BODY_ERROR_FORMATS) bodyFormats: BodyErrorFormats,
  ) {
    this.throttle = bruteForce.clientThrottle();
    // Bodies the host's parser refuses get this endpoint's format too (400 invalid_request, RFC 6749 5.2).
    if (config.edition === 'marketplace') {
      bodyFormats.add(`/${MARKETPLACE_TOKEN_PATH}`, ({ message }) => ({
        status: 400,
        headers: { 'Cache-Control': 'no-store' },
        body: { success: false, error: 'invalid_request', error_description: message },
      }));
    }
  }

  @Public()
  @Post('external-service-token')
  @HttpCode(200)
  async token(
    @Body() { client_id: clientId, client_secret: clientSecret }: MarketplaceTokenRequest,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    try {
      const authenticated = await this.clientsService.authenticate(clientId, clientSecret);
      if (!(await this.throttle.accepts(clientId, req.ip ?? 'unknown', authenticated !== null))) {
        throw oauthErrors.invalidClient();
      }
      const client = await this.clients.find(clientId);
      if (!client?.grantTypes.includes('client_credentials')) {
        throw oauthErrors.unauthorizedClient('the client is not a service account');
      }
      const tenant = serviceAccountTenant(client);
      const scope = client.scopes.join(' ');
      const tokens = await this.issuer.forServiceAccount({ ...client, tenant }, scope);
      const answer: MarketplaceTokenResponse = {
        success: true,
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: this.issuer.tokenTtlSeconds,
        scope,
      };
      res.status(200).set('Cache-Control', 'no-store').json(answer);
    } catch (error) {
      if (isUnreachable(error)) {
        throw new OAuthError('bad_gateway', 'the authentication platform could not be reached', 502);
      }
      throw error;
    }
  }
}
