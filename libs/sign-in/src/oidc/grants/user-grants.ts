import { ALWAYS_ALLOWED_SCOPES } from '@fed/contracts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import {
  type ClientEntity,
  loginEndedBy,
  type TenantEntity,
  type UserEntity,
  type UserRepository,
} from '@fed/identity/internal';
import { type ArtifactStore } from '../artifacts/artifact-store';
import {
  type IssuedAccessToken,
  type Redemption,
  type RefreshTokenRepository,
  type TokenFamily,
} from '../refresh-tokens/refresh-token.repository';
import { type TokenRevocations } from '../revocation/token-revocations';
import { oauthErrors as errors } from '../oauth-http';
import { fromProviderScope } from '../offline-access';
import { scopesHeldBy } from '../role-scopes';
import { type TokenIssuer, type UserLogin } from '../token-issuer';
import { type GrantRequest } from './grant-request';

export interface SessionSettings {
  refreshTokenTtlSeconds: number;
  /** A refresh-token family ends this long after the user authenticated. */
  maxSeconds: number;
}

/** The spec's token response of the Authorization Code and refresh flows; no ID token without `openid`. */
export interface UserTokenResponse {
  access_token: string;
  id_token?: string;
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
  /** The resource indicator of the request (RFC 8707), one at most (authorize-precheck.ts). */
  resource?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  nonce?: string;
  /** Unix seconds, to the millisecond for logins stamped so. */
  authTime: number;
  /** Present only for clients of logout features; the session's uid serves as `sid` otherwise. */
  sid?: string;
  sessionUid: string;
  exp: number;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

interface Rotation {
  login: UserLogin;
  /** The scope the new refresh token grants. */
  refreshScope: string;
  family: TokenFamily;
  createFamily: boolean;
  redeem(manager: EntityManager): Promise<Redemption>;
}

type RotationOutcome =
  { refreshToken: string } | { redemption: Exclude<Redemption, 'redeemed'>; revoked: IssuedAccessToken[] };

/**
 * oidc-provider ran the browser side; these check the code (client, expiry, `redirect_uri`, PKCE S256, then
 * single use) and rotate refresh tokens. A code or refresh token used twice revokes everything from its login.
 */
export function userGrants(deps: UserGrantDependencies) {
  async function eligibleUser(client: ClientEntity, userId: string, authTime: number) {
    const user = await deps.users.find(userId);
    if (!user || user.status !== 'approved' || !user.tenant) {
      throw errors.invalidGrant('the user can no longer sign in');
    }
    if (loginEndedBy(user.sessionsValidAfter, authTime)) {
      throw errors.invalidGrant("the user's sessions have ended; sign in again");
    }
    if (!user.tenant.enabled) throw errors.unauthorizedClient("the user's tenant is disabled");
    if (client.publicationStatus === 'Unpublished' && !user.developer) {
      throw errors.unauthorizedClient('this application is unpublished; only developers may use it');
    }
    return user as UserEntity & { tenant: TenantEntity };
  }

  /**
   * One transaction under the family's row lock, so no token is stored into a family a concurrent reuse revokes
   * (RFC 6749 4.1.2, 10.4). The access token's `jti` is stored before signing; revocations publish after commit.
   */
  async function rotate(
    rotation: Rotation,
    refusals: Record<Exclude<Redemption, 'redeemed'> | 'revoked', string>,
  ): Promise<UserTokenResponse> {
    const { login, family } = rotation;
    const now = Date.now();
    const plan = deps.issuer.planAccessToken();
    const expiresAt = new Date(Math.min(now + deps.settings.refreshTokenTtlSeconds * 1000, family.expiresAt.getTime()));
    const lock = rotation.createFamily ? family : family.id;
    const result = await deps.refreshTokens.withinFamily<RotationOutcome>(lock, async (manager) => {
      const redemption = await rotation.redeem(manager);
      if (redemption === 'redeemed') {
        const refreshToken = await deps.refreshTokens.issue(manager, {
          familyId: family.id,
          clientId: login.client.clientId,
          userId: login.user.id,
          scope: rotation.refreshScope,
          resource: login.resource,
          sessionId: login.sessionId,
          authTime: login.authTime,
          accessTokenId: plan.jti,
          accessExpiresAt: new Date(plan.expiresAt * 1000),
          expiresAt,
        });
        return { refreshToken };
      }
      const revoked = redemption === 'reused' ? await deps.revocations.revokeFamilyWithin(manager, family.id) : [];
      return { redemption, revoked };
    });
    if (result === 'revoked') throw errors.invalidGrant(refusals.revoked);
    if (!('refreshToken' in result)) {
      await deps.revocations.revokeAccessTokens(result.revoked);
      throw errors.invalidGrant(refusals[result.redemption]);
    }
    const tokens = await deps.issuer.forUser(login, plan);
    return {
      access_token: tokens.accessToken,
      id_token: tokens.idToken,
      expires_in: deps.issuer.tokenTtlSeconds,
      refresh_expires_in: Math.max(0, Math.floor((expiresAt.getTime() - now) / 1000)),
      refresh_token: result.refreshToken,
      token_type: 'Bearer',
      scope: login.scope,
    };
  }

  async function authorizationCode({ client, params }: GrantRequest): Promise<UserTokenResponse> {
    const { code } = params;
    if (!code) throw errors.invalidRequest("missing required parameter 'code'");
    if (!params.redirect_uri) throw errors.invalidRequest("missing required parameter 'redirect_uri'");
    const stored = (code.length <= 256 ? await deps.artifacts.find('AuthorizationCode', code) : undefined) as
      StoredCode | undefined;
    // Non-consuming checks first, so a failing request neither burns the code nor, replayed, revokes its tokens.
    if (!stored || stored.clientId !== client.clientId) throw errors.invalidGrant('authorization code not found');
    if (stored.exp <= Math.floor(Date.now() / 1000)) throw errors.invalidGrant('authorization code is expired');
    if (stored.redirectUri !== params.redirect_uri) throw errors.invalidGrant('redirect_uri mismatch');
    checkPkce(params.code_verifier, stored, client.requirePkce);
    checkResource(params.resource, stored.resource, 'the authorization request');
    const user = await eligibleUser(client, stored.accountId, stored.authTime);

    // The role and operator flag now, not at the consent: a user demoted since gets no management scope.
    const asked = fromProviderScope(stored.scope.split(' '));
    const scope = scopesHeldBy(user, asked.filter(grantable(client))).join(' ');
    return rotate(
      {
        login: {
          client,
          user,
          scope,
          sessionId: stored.sid ?? stored.sessionUid,
          authTime: stored.authTime,
          nonce: stored.nonce,
          resource: stored.resource,
        },
        refreshScope: scope,
        family: {
          id: stored.grantId,
          clientId: client.clientId,
          userId: user.id,
          expiresAt: new Date((stored.authTime + deps.settings.maxSeconds) * 1000),
        },
        createFamily: true,
        redeem: async (manager) =>
          (await deps.artifacts.consume('AuthorizationCode', code, manager)) ? 'redeemed' : 'reused',
      },
      {
        reused: 'authorization code already used; the tokens issued for it are revoked',
        invalid: 'authorization code not found',
        revoked: 'the login of this authorization code has been revoked',
      },
    );
  }

  function checkPkce(verifier: string | undefined, code: StoredCode, required: boolean): void {
    if (!code.codeChallenge) {
      // The authorization endpoint refuses such a request; a code from before the policy changed ends here.
      if (required)
        throw errors.invalidGrant('this client must use PKCE; the code was issued without a code_challenge');
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
    const presented = params.refresh_token;
    if (!presented) throw errors.invalidRequest("missing required parameter 'refresh_token'");
    const token = await deps.refreshTokens.find(presented, client.clientId);
    if (!token) throw errors.invalidGrant('refresh token is invalid or expired');
    checkResource(params.resource, token.resource, 'the refresh token');
    const user = await eligibleUser(client, token.userId, token.authTime);
    const held = scopesHeldBy(user, token.scope.split(' ').filter(grantable(client)));
    let scope = held;
    if (params.scope !== undefined) {
      const requested = [...new Set(params.scope.split(' ').filter(Boolean))];
      const refused = requested.find((name) => !held.includes(name));
      if (refused !== undefined) throw errors.invalidScope(`the refresh token does not grant this scope: ${refused}`);
      scope = requested;
    }
    return rotate(
      {
        login: {
          client,
          user,
          scope: scope.join(' '),
          sessionId: token.sessionId,
          authTime: token.authTime,
          resource: token.resource,
        },
        // RFC 6749 6: a narrowed refresh narrows the tokens it returns, not the refresh token.
        refreshScope: held.join(' '),
        family: {
          id: token.familyId,
          clientId: token.clientId,
          userId: token.userId,
          expiresAt: token.familyExpiresAt,
        },
        createFamily: false,
        redeem: (manager) => deps.refreshTokens.redeem(manager, presented, client.clientId),
      },
      {
        reused: 'refresh token already used; every token of this login is revoked',
        invalid: 'refresh token is invalid or expired',
        revoked: 'refresh token has been revoked',
      },
    );
  }

  return { authorizationCode, refreshToken };
}

function grantable(client: ClientEntity) {
  return (name: string) => client.scopes.includes(name) || ALWAYS_ALLOWED_SCOPES.includes(name);
}

/** RFC 8707 2.2: `resource` may repeat the grant's resource, never name another (nor one where it had none). */
function checkResource(requested: string | undefined, granted: string | undefined, grant: string): void {
  if (requested !== undefined && requested !== granted) {
    throw errors.invalidTarget(`resource is not the one ${grant} was issued for`);
  }
}
