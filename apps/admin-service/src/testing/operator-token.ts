import { SigningKeysService } from '@fed/identity';
import { type RunningService } from '@fed/server';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';

/**
 * A Client Credentials access token without a `tenant` claim (the platform operator's own integration),
 * signed by the realm's active key as auth-service signs its tokens: every service verifies it against the
 * JWKS like any other. The realm registers every client in a tenant, so none is issued over HTTP yet.
 */
export async function operatorToken(auth: RunningService, scopes: string[]): Promise<string> {
  const { kid, privateKey } = await auth.nest.get(SigningKeysService).activeSigningKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    typ: 'Bearer',
    azp: 'platform-operator',
    scope: scopes.join(' '),
    preferred_username: 'service-account-platform-operator@service-accounts.local',
    realm_access: { roles: ['M2M'] },
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
    .setIssuer(auth.config.auth.issuer)
    .setSubject(randomUUID())
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(privateKey);
}
