import { Controller, Get, Inject, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { type Response } from 'express';
import { OIDC_BASE_PATH } from './oidc-provider.factory';

/** Exactly the fields and values of the spec's discovery table, in its order. */
export function discoveryDocument(authUrl: string, issuer: string) {
  const endpoint = (name: string) => `${authUrl}${OIDC_BASE_PATH}/${name}`;
  return {
    issuer,
    authorization_endpoint: endpoint('authorize'),
    token_endpoint: endpoint('token'),
    userinfo_endpoint: endpoint('userinfo'),
    jwks_uri: endpoint('jwks'),
    revocation_endpoint: endpoint('revoke'),
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
  };
}

/**
 * The discovery document, served by us rather than by oidc-provider, whose document lists more than
 * the spec allows and builds its URLs from the request. Both paths answer the same bytes.
 */
@Controller('realms/federation/.well-known')
export class DiscoveryController {
  private readonly body: Buffer;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.body = Buffer.from(JSON.stringify(discoveryDocument(config.auth.authUrl, config.auth.issuer)));
  }

  @Public()
  @Get('openid-configuration')
  openidConfiguration(@Res() res: Response): void {
    this.send(res);
  }

  @Public()
  @Get('oauth-authorization-server')
  authorizationServer(@Res() res: Response): void {
    this.send(res);
  }

  private send(res: Response): void {
    res
      .status(200)
      .set({
        'Content-Type': 'application/json',
        'Cache-Control': 'public, max-age=300',
        'Access-Control-Allow-Origin': '*',
      })
      .end(this.body);
  }
}
