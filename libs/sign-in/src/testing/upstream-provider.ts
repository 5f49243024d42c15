import { freePort } from '@fed/testing';
import { randomBytes } from 'node:crypto';
import { type Server } from 'node:http';

export interface UpstreamAccount {
  [claim: string]: unknown;
}

export interface UpstreamProvider {
  /** `http://localhost:<port>`: another host name than the service's 127.0.0.1, so the two providers' cookies stay apart. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The test account's claims by login; change them to see userinfo follow. */
  accounts: Map<string, UpstreamAccount>;
  stop(): Promise<void>;
}

/** A real oidc-provider (any password signs in the named account) standing in for a tenant's identity provider. */
export async function startUpstreamProvider(options: {
  redirectUri: string;
  accounts: Record<string, UpstreamAccount>;
}): Promise<UpstreamProvider> {
  const { default: Provider } = await import('oidc-provider');
  const port = await freePort();
  const issuer = `http://localhost:${port}`;
  const clientId = 'federation-broker';
  const clientSecret = randomBytes(24).toString('base64url');
  const accounts = new Map(Object.entries(options.accounts));
  // Its development-only warnings are expected of a test provider.
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    scopes: ['openid', 'profile', 'email', 'org', 'offline_access'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
      org: ['department', 'job_title', 'about'],
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { AccessToken: 600, RefreshToken: 3600, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    features: { devInteractions: { enabled: true } },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    async findAccount(_ctx, sub) {
      if (!accounts.has(sub)) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...accounts.get(sub) }) };
    },
    async loadExistingGrant(ctx) {
      const { client, session, params } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope(String(params?.scope ?? 'openid'));
      await grant.save();
      return grant;
    },
  });
  warn.mockRestore();
  const server: Server = provider.listen(port);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
