import { createHash, timingSafeEqual } from 'node:crypto';
import { type ClientEntity } from '../../clients/client.entity';
import { type TenantEntity } from '../../tenants/tenant.entity';
import { type UserEntity } from '../../users/user.entity';
import { type UserRepository } from '../../users/user.repository';
import { type ArtifactStore } from '../artifacts/artifact-store';
import { type RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';
import { type TokenRevocations } from '../revocation/token-revocations';
import { oauthErrors as errors } from '../oauth-http';
import { type TokenIssuer } from '../token-issuer';
import { type GrantRequest } from './grant-request';

export interface SessionSettings {
  refreshTokenTtlSeconds: number;
  /** A refresh-token family ends this long after the user authenticated. */
  maxSeconds: number;
}

/** The spec's token response of the Authorization Code and refresh flows. */
export interface UserTokenResponse {
  access_token: string;
  id_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: 'Bearer';
  scope: string;
}

export interface UserGrantDependencies {
  users: UserRepository;
  artifacts: ArtifactStore;
  refreshTokens: RefreshTokenRepository;
  revocations: TokenRevocations;
  issuer: TokenIssuer;
  settings: SessionSettings;
}

/** What oidc-provider stores for an authorization code (the fields we read). */
interface StoredCode {
  accountId: string;
  clientId: string;
  grantId: string;
  scope: string;
  redirectUri: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  nonce?: string;
  authTime: number;
  /** Present only for clients of logout features; the session's uid serves as `sid` otherwise. */
  sid?: string;
  sessionUid: string;
  exp: number;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * The token endpoint's `authorization_code` and `refresh_token` grants. oidc-provider ran the
 * browser side (request checks, login, consent, the code); these handlers check the code (client,
 * expiry, single use, `redirect_uri`, PKCE S256) and issue the spec's tokens with a rotating refresh
 * token. A code or refresh token used twice revokes every token descended from its login.
 */
export function userGrants(deps: UserGrantDependencies) {
  async function eligibleUser(client: ClientEntity, userId: string, authTime: number) {
    const user = await deps.users.find(userId);
    if (!user || user.status !== 'approved' || !user.tenant) {
      throw errors.invalidGrant('the user can no longer sign in');
    }
    if (user.sessionsValidAfter && authTime < Math.floor(user.sessionsValidAfter.getTime() / 1000)) {
      throw errors.invalidGrant("the user's sessions have ended; sign in again");
    }
    if (!user.tenant.enabled) throw errors.unauthorizedClient("the user's tenant is disabled");
    if (client.publicationStatus === 'Unpublished' && !user.developer) {
      throw errors.unauthorizedClient('this application is unpublished; only developers may use it');
    }
    return user as UserEntity & { tenant: TenantEntity };
  }

  async function respond(
    login: { client: ClientEntity; user: UserEntity & { tenant: TenantEntity }; scope: string },
    family: { id: string; sessionId: string; authTime: number; expiresAt: Date; nonce?: string },
  ): Promise<UserTokenResponse> {
    const now = Date.now();
    const expiresAt = new Date(Math.min(now + deps.settings.refreshTokenTtlSeconds * 1000, family.expiresAt.getTime()));
    const tokens = await deps.issuer.forUser({
      ...login,
      sessionId: family.sessionId,
      authTime: family.authTime,
      nonce: family.nonce,
    });
    const refreshToken = await deps.refreshTokens.issue({
      familyId: family.id,
      clientId: login.client.clientId,
      userId: login.user.id,
      scope: login.scope,
      sessionId: family.sessionId,
      authTime: family.authTime,
      accessTokenId: tokens.accessTokenId,
      accessExpiresAt: tokens.accessExpiresAt,
      expiresAt,
      familyExpiresAt: family.expiresAt,
    });
    return {
      access_token: tokens.accessToken,
      id_token: tokens.idToken,
      expires_in: deps.issuer.tokenTtlSeconds,
      refresh_expires_in: Math.max(0, Math.floor((expiresAt.getTime() - now) / 1000)),
      refresh_token: refreshToken,
      token_type: 'Bearer',
      scope: login.scope,
    };
  }

  async function authorizationCode({ client, params }: GrantRequest): Promise<UserTokenResponse> {
    if (!params.code) throw errors.invalidRequest("missing required parameter 'code'");
    if (!params.redirect_uri) throw errors.invalidRequest("missing required parameter 'redirect_uri'");
    const code = params.code.length <= 256 ? await deps.artifacts.find('AuthorizationCode', params.code) : undefined;
    const stored = code as (StoredCode & { consumed?: number }) | undefined;
    if (!stored || stored.clientId !== client.clientId) throw errors.invalidGrant('authorization code not found');
    if (stored.exp <= Math.floor(Date.now() / 1000)) throw errors.invalidGrant('authorization code is expired');
    if (stored.consumed !== undefined || !(await deps.artifacts.consume('AuthorizationCode', params.code))) {
      // RFC 6749 4.1.2: a code used twice revokes what it was exchanged for.
      await deps.revocations.revokeFamily(stored.grantId);
      throw errors.invalidGrant('authorization code already used; the tokens issued for it are revoked');
    }
    if (stored.redirectUri !== params.redirect_uri) throw errors.invalidGrant('redirect_uri mismatch');
    checkPkce(params.code_verifier, stored);

    const user = await eligibleUser(client, stored.accountId, stored.authTime);
    const scope = stored.scope
      .split(' ')
      .filter((name) => client.scopes.includes(name) || name === 'openid')
      .join(' ');
    return respond(
      { client, user, scope },
      {
        id: stored.grantId,
        sessionId: stored.sid ?? stored.sessionUid,
        authTime: stored.authTime,
        expiresAt: new Date((stored.authTime + deps.settings.maxSeconds) * 1000),
        nonce: stored.nonce,
      },
    );
  }

  function checkPkce(verifier: string | undefined, code: StoredCode): void {
    if (!code.codeChallenge) {
      if (verifier !== undefined) throw errors.invalidGrant('code_verifier given but no code_challenge was sent');
      return;
    }
    if (verifier === undefined) throw errors.invalidGrant('code_verifier is required');
    if (!VERIFIER.test(verifier)) throw errors.invalidGrant('code_verifier is malformed');
    const expected = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
    const challenge = Buffer.from(code.codeChallenge);
    if (expected.length !== challenge.length || !timingSafeEqual(expected, challenge)) {
      throw errors.invalidGrant('PKCE verification failed');
    }
  }

  async function refreshToken({ client, params }: GrantRequest): Promise<UserTokenResponse> {
    if (!params.refresh_token) throw errors.invalidRequest("missing required parameter 'refresh_token'");
    const redeemed = await deps.refreshTokens.redeem(params.refresh_token, client.clientId);
    if (redeemed.outcome === 'reused') {
      await deps.revocations.revokeFamily(redeemed.familyId);
      throw errors.invalidGrant('refresh token already used; every token of this login is revoked');
    }
    if (redeemed.outcome === 'invalid') throw errors.invalidGrant('refresh token is invalid or expired');
    const { token } = redeemed;
    const user = await eligibleUser(client, token.userId, token.authTime);
    const held = token.scope.split(' ').filter((name) => client.scopes.includes(name) || name === 'openid');
    let scope = held;
    if (params.scope !== undefined) {
      const requested = [...new Set(params.scope.split(' ').filter(Boolean))];
      const refused = requested.find((name) => !held.includes(name));
      if (refused !== undefined) throw errors.invalidScope(`the refresh token does not grant this scope: ${refused}`);
      scope = requested;
    }
    return respond(
      { client, user, scope: scope.join(' ') },
      { id: token.familyId, sessionId: token.sessionId, authTime: token.authTime, expiresAt: token.familyExpiresAt },
    );
  }

  return { authorizationCode, refreshToken };
}
