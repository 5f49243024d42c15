import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { Public, protectedResourceUrls } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { clientAddress } from '@fed/server';
import { type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { isClientIdShaped } from '@fed/identity/internal';
import { precheckAuthorization } from './authorize-precheck';
import { ClientCache } from './client-cache';
import { toProviderScope } from './offline-access';
import { OIDC_PROVIDER } from './oidc.tokens';

/** Routes oidc-provider answers itself; the token endpoint is ours (TokenEndpointMiddleware). */
@Controller('federation/auth/v1')
export class AuthorizeController {
  private readonly handle: ReturnType<Provider['callback']>;
  private readonly resources: readonly string[];
  private readonly trustProxyHops: number;

  constructor(
    @Inject(OIDC_PROVIDER) private readonly provider: Provider,
    private readonly clients: ClientCache,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.handle = provider.callback();
    this.resources = protectedResourceUrls(config.http.publicUrl);
    this.trustProxyHops = config.http.trustProxyHops;
  }

  @Public()
  @Get('authorize')
  async authorize(@Req() req: Request, @Res() res: Response): Promise<void> {
    const query = req.query as Record<string, unknown>;
    const { client_id: clientId, redirect_uri: redirectUri, state } = query;
    if (typeof clientId === 'string' && typeof redirectUri === 'string' && isClientIdShaped(clientId)) {
      // A metadata document's client is fetched here, on the first use (counted against the browser's address).
      const client = await this.clients.find(clientId, clientAddress(req, this.trustProxyHops));
      const refusal = client?.redirectUris.includes(redirectUri)
        ? precheckAuthorization(client, query, this.resources)
        : undefined;
      if (refusal) {
        const target = new URL(redirectUri);
        target.searchParams.set('error', refusal.error);
        target.searchParams.set('error_description', refusal.description);
        if (typeof state === 'string') target.searchParams.set('state', state);
        target.searchParams.set('iss', this.provider.issuer);
        res.set('Cache-Control', 'no-store').redirect(302, target.href);
        return;
      }
      // `offline_access` goes to the provider under its internal name, which the provider keeps (offline-access.ts).
      if (client && typeof query.scope === 'string') {
        req.url = withScope(req.url, toProviderScope(query.scope, client.grantTypes.includes('refresh_token')));
      }
    }
    this.handle(req, res);
  }

  @Public()
  @Get('authorize/:uid')
  resume(@Req() req: Request, @Res() res: Response): void {
    this.handle(req, res);
  }
}

function withScope(url: string, scope: string): string {
  const parsed = new URL(url, 'http://request.invalid');
  if (parsed.searchParams.get('scope') === scope) return url;
  parsed.searchParams.set('scope', scope);
  return `${parsed.pathname}${parsed.search}`;
}
