import { ACCESS_TOKEN_AUDIENCE, AUTH_TIME_MS_CLAIM } from '@fed/auth';
import { type JWTPayload } from 'jose';
import { type KeyObject, randomUUID, sign } from 'node:crypto';
import { type ClientEntity, type SigningKeysService, type TenantEntity, type UserEntity } from '@fed/identity/internal';

export interface TokenIssuerSettings {
  issuer: string;
  tokenTtlSeconds: number;
  serviceAccountDomain: string;
}

export interface UserLogin {
  client: ClientEntity;
  user: UserEntity & { tenant: TenantEntity };
  scope: string;
  /** `sid`: the browser session. */
  sessionId: string;
  /** Unix seconds, to the millisecond where the login was stamped so. */
  authTime: number;
  /** Code exchange only. */
  nonce?: string;
  /** RFC 8707: the access token's `aud` instead of `broker`. */
  resource?: string;
}

/** Known before signing, since its refresh token is stored with it first. */
export interface AccessTokenPlan {
  jti: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}

export interface IssuedTokens {
  accessToken: string;
  /** Only for a scope with `openid`. */
  idToken?: string;
}

/** No `at_hash` (optional in the code flow, OpenID Connect Core 3.1.3.6), so both tokens are signed at once. */
export class TokenIssuer {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly settings: TokenIssuerSettings,
  ) {}

  get tokenTtlSeconds(): number {
    return this.settings.tokenTtlSeconds;
  }

  planAccessToken(): AccessTokenPlan {
    const issuedAt = Math.floor(Date.now() / 1000);
    return { jti: randomUUID(), issuedAt, expiresAt: issuedAt + this.settings.tokenTtlSeconds };
  }

  /** No code-flow claims, no `tenant` for the operator's integration; `aud` only for a requested resource. */
  async forServiceAccount(
    client: Omit<ClientEntity, 'tenant'> & { tenant: TenantEntity | null },
    scope: string,
    resource?: string,
  ): Promise<IssuedTokens> {
    const preferredUsername = `service-account-${client.clientId}@${this.settings.serviceAccountDomain}`;
    const tenant = client.tenant ? { tenant: tenantClaim(client.tenant) } : {};
    return this.sign(client.serviceAccountId, {
      access: {
        typ: 'Bearer',
        azp: client.clientId,
        ...(resource !== undefined ? { aud: resource } : {}),
        scope,
        preferred_username: preferredUsername,
        realm_access: { roles: ['M2M'] },
        ...tenant,
      },
      id: { typ: 'ID', aud: client.clientId, azp: client.clientId, preferred_username: preferredUsername, ...tenant },
    });
  }

  async forUser(login: UserLogin, plan: AccessTokenPlan): Promise<IssuedTokens> {
    const { client, user, scope } = login;
    const scopes = new Set(scope.split(' '));
    const tenant = tenantClaim(user.tenant);
    const roles = { roles: userRoles(user) };
    const idp = identityProviderClaims(user);
    // The spec's `auth_time` is whole seconds; the millisecond is what a session cut-off is compared with.
    const authTime = Math.floor(login.authTime);
    const access: JWTPayload = {
      typ: 'Bearer',
      azp: client.clientId,
      aud: login.resource ?? ACCESS_TOKEN_AUDIENCE,
      scope,
      sid: login.sessionId,
      auth_time: authTime,
      [AUTH_TIME_MS_CLAIM]: Math.round(login.authTime * 1000),
      'allowed-origins': allowedOrigins(client.redirectUris),
      realm_access: roles,
      tenant,
      ...(idp ? { idp: idp.access } : {}),
    };
    const id: JWTPayload = {
      typ: 'ID',
      aud: client.clientId,
      azp: client.clientId,
      sid: login.sessionId,
      auth_time: authTime,
      ...(login.nonce !== undefined ? { nonce: login.nonce } : {}),
      ...(scopes.has('profile') ? { name: user.displayName } : {}),
      ...(scopes.has('email') ? { email: user.email, email_verified: user.emailVerified } : {}),
      realm_access: roles,
      tenant,
      ...(idp ? { idp: idp.id } : {}),
    };
    return this.sign(user.id, { access, id: scopes.has('openid') ? id : undefined }, plan);
  }

  private async sign(
    subject: string,
    claims: { access: JWTPayload; id: JWTPayload | undefined },
    plan = this.planAccessToken(),
  ): Promise<IssuedTokens> {
    const { kid, privateKey } = await this.keys.activeSigningKey();
    const header = base64urlJson({ alg: 'RS256', typ: 'JWT', kid });
    const common = { iss: this.settings.issuer, sub: subject, iat: plan.issuedAt, exp: plan.expiresAt };
    // The two signatures run at once on libuv's thread pool, off the event loop.
    const [accessToken, idToken] = await Promise.all([
      signJws(header, { ...common, jti: plan.jti, ...claims.access }, privateKey),
      claims.id && signJws(header, { ...common, jti: randomUUID(), ...claims.id }, privateKey),
    ]);
    return idToken !== undefined ? { accessToken, idToken } : { accessToken };
  }
}

function tenantClaim(tenant: TenantEntity) {
  return { id: tenant.id, type: tenant.type, endpoint: tenant.endpoint };
}

/** `realm_access.roles`: the user's role, and `developer` for users who may use Unpublished clients. */
export function userRoles(user: Pick<UserEntity, 'role' | 'developer'>): string[] {
  return user.developer ? [user.role, 'developer'] : [user.role];
}

export function isTenantUser(user: UserEntity & { tenant: TenantEntity }): boolean {
  return user.tenant.type === 'enterprise' && user.idpSubject !== null;
}

function identityProviderClaims(user: UserEntity & { tenant: TenantEntity }) {
  if (!isTenantUser(user)) return undefined;
  const access = {
    sub: user.idpSubject,
    preferred_username: user.email,
    ...(user.organization ? { organization: user.organization.label } : {}),
    ...(user.job ? { job: user.job.label } : {}),
    ...(user.bio !== null ? { bio: user.bio } : {}),
  };
  // `idp.display_name` and `idp.email` are ID-token claims only.
  return { access, id: { ...access, display_name: user.displayName, email: user.email } };
}

function allowedOrigins(redirectUris: readonly string[]): string[] {
  return [...new Set(redirectUris.map((uri) => new URL(uri).origin))];
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** A compact RS256 JWS (RSASSA-PKCS1-v1_5 with SHA-256), signed asynchronously by node:crypto. */
function signJws(header: string, payload: JWTPayload, key: KeyObject): Promise<string> {
  const input = `${header}.${base64urlJson(payload)}`;
  return new Promise((resolve, reject) =>
    sign('sha256', Buffer.from(input, 'ascii'), key, (error, signature) =>
      error ? reject(error) : resolve(`${input}.${signature.toString('base64url')}`),
    ),
  );
}
