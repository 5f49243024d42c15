import { Controller, Get, Inject, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { OFFLINE_ACCESS_SCOPE, scopes } from '@fed/contracts';
import { type Response } from 'express';
import { OIDC_BASE_PATH } from './oidc-provider.factory';

export interface DiscoveryOptions {
  /** RFC 7591 registration is switched on: the document names its endpoint. */
  dynamicRegistration: boolean;
}

/** The spec's table in its order, then what an MCP client reads (RFC 8414, MCP authorization spec 2025-11-25). */
export function discoveryDocument(authUrl: string, issuer: string, options: DiscoveryOptions) {
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
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...scopes, OFFLINE_ACCESS_SCOPE],
    client_id_metadata_document_supported: true,
    ...(options.dynamicRegistration ? { registration_endpoint: endpoint('register') } : {}),
  };
}

/** The issuer's path: RFC 8414 3.1 inserts the well-known name before it, at the host's root. */
const ISSUER_PATH = 'realms/federation';

/**
 * Ours, since oidc-provider's lists more than the spec allows and builds URLs from the request. Every path
 * serves the same bytes: below the issuer, and at the host's root with the issuer's path appended (RFC 8414 3.1).
 */
@Controller()
export class DiscoveryController {
  private readonly body: Buffer;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    const document = discoveryDocument(config.auth.authUrl, config.auth.issuer, {
      dynamicRegistration: config.registration.dynamic,
    });
    this.body = Buffer.from(JSON.stringify(document));
  }

  @Public()
  @Get([
    `${ISSUER_PATH}/.well-known/openid-configuration`,
    `${ISSUER_PATH}/.well-known/oauth-authorization-server`,
    `.well-known/oauth-authorization-server/${ISSUER_PATH}`,
    `.well-known/openid-configuration/${ISSUER_PATH}`,
  ])
  document(@Res() res: Response): void {
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
