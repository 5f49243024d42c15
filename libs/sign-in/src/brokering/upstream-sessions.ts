import * as oidc from 'openid-client';
import {
  idpUserInfo,
  type KeyEncryption,
  profileFrom,
  SealedBox,
  type TenantEntity,
  type TenantIdpRepository,
  type TenantIdpsService,
  type UpstreamProfile,
  type UpstreamSettings,
  type UserEntity,
} from '@fed/identity/internal';
import { type IdpAccountsRepository } from './idp-accounts.repository';
import { UpstreamMisconfigured, type UpstreamClients, upstreamFailure } from './upstream-clients';

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  loginHint?: string;
  locale: string;
}

export interface CodeExchange {
  callbackUrl: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export type UpstreamTokens = Pick<oidc.TokenEndpointResponse, 'access_token' | 'refresh_token' | 'expires_in'>;

// An access token this close to its expiry is refreshed before it is used.
const EXPIRY_MARGIN_MS = 10_000;
const accessContext = (userId: string) => `idp-access-token:${userId}`;
const refreshContext = (userId: string) => `idp-refresh-token:${userId}`;

/** openid-client relying party (PKCE S256, state, nonce); failures are UpstreamUnreachable or UpstreamMisconfigured. */
export class UpstreamSessions {
  private readonly tokens: SealedBox;
  // One refresh per user at a time in this process: providers that rotate refresh tokens refuse a second use.
  private readonly refreshing = new Map<string, Promise<string>>();

  constructor(
    private readonly idps: TenantIdpsService,
    private readonly upstreams: UpstreamClients,
    private readonly repository: TenantIdpRepository,
    private readonly accounts: IdpAccountsRepository,
    encryption: KeyEncryption,
  ) {
    this.tokens = new SealedBox(encryption, 'idp-user-tokens');
  }

  async hasProvider(tenant: TenantEntity): Promise<boolean> {
    return (await this.repository.find(tenant)) !== null;
  }

  async authorizationUrl(tenant: TenantEntity, request: AuthorizationRequest): Promise<URL> {
    return this.attempt(async () => {
      const settings = await this.settingsOf(tenant.id);
      const configuration = await this.upstreams.configurationOf(settings);
      return oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: request.redirectUri,
        scope: settings.scopes.join(' '),
        code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
        code_challenge_method: 'S256',
        state: request.state,
        nonce: request.nonce,
        ui_locales: request.locale,
        ...(request.loginHint ? { login_hint: request.loginHint } : {}),
      });
    });
  }

  /** The upstream's refusal (`error` in the callback) passes through as oidc.AuthorizationResponseError. */
  async exchange(tenantId: string, exchange: CodeExchange) {
    return this.attempt(async () => {
      const settings = await this.settingsOf(tenantId);
      const configuration = await this.upstreams.configurationOf(settings);
      const response = await oidc.authorizationCodeGrant(configuration, exchange.callbackUrl, {
        pkceCodeVerifier: exchange.codeVerifier,
        expectedState: exchange.state,
        expectedNonce: exchange.nonce,
        idTokenExpected: true,
      });
      const idToken = response.claims() as oidc.IDToken;
      const userinfo = configuration.serverMetadata().userinfo_endpoint
        ? await oidc.fetchUserInfo(configuration, response.access_token, idToken.sub)
        : {};
      const profile = await this.profileOf(settings, idToken.sub, { ...idToken, ...userinfo });
      return { tenant: settings.tenant, profile, response };
    }, [oidc.AuthorizationResponseError]);
  }

  async keepTokens(userId: string, response: UpstreamTokens, at: Date): Promise<void> {
    await this.accounts.saveTokens({
      userId,
      accessTokenCiphertext: this.tokens.seal(response.access_token, accessContext(userId)),
      refreshTokenCiphertext: response.refresh_token
        ? this.tokens.seal(response.refresh_token, refreshContext(userId))
        : null,
      accessExpiresAt: response.expires_in !== undefined ? new Date(at.getTime() + response.expires_in * 1000) : null,
      updatedAt: at,
    });
  }

  /** Undefined for a user who never signed in upstream (a realm file's password user): the stored values answer. */
  async freshIdp(user: UserEntity & { tenant: TenantEntity }) {
    const stored = await this.accounts.tokensOf(user.id);
    if (!stored || user.idpSubject === null) return undefined;
    const subject = user.idpSubject;
    return this.attempt(async () => {
      const settings = await this.settingsOf(user.tenantId);
      const configuration = await this.upstreams.configurationOf(settings);
      const expired =
        stored.accessExpiresAt !== null && stored.accessExpiresAt.getTime() - EXPIRY_MARGIN_MS <= Date.now();
      let accessToken =
        expired && stored.refreshTokenCiphertext
          ? await this.refresh(user.id, configuration, stored.refreshTokenCiphertext)
          : this.tokens.open(stored.accessTokenCiphertext, accessContext(user.id));
      let claims: oidc.UserInfoResponse;
      try {
        claims = await oidc.fetchUserInfo(configuration, accessToken, subject);
      } catch (error) {
        // Revoked or expired early upstream: one refresh, then one more try.
        if (!(error instanceof oidc.WWWAuthenticateChallengeError) || !stored.refreshTokenCiphertext || expired)
          throw error;
        accessToken = await this.refresh(user.id, configuration, stored.refreshTokenCiphertext);
        claims = await oidc.fetchUserInfo(configuration, accessToken, subject);
      }
      return idpUserInfo(await this.profileOf(settings, subject, claims));
    });
  }

  private refresh(userId: string, configuration: oidc.Configuration, sealed: Buffer): Promise<string> {
    const running = this.refreshing.get(userId);
    if (running) return running;
    const work = (async () => {
      const refreshToken = this.tokens.open(sealed, refreshContext(userId));
      const response = await oidc.refreshTokenGrant(configuration, refreshToken);
      // A provider that does not rotate refresh tokens returns none: the one we hold stays good.
      await this.keepTokens(
        userId,
        {
          access_token: response.access_token,
          refresh_token: response.refresh_token ?? refreshToken,
          expires_in: response.expires_in,
        },
        new Date(),
      );
      return response.access_token;
    })().finally(() => this.refreshing.delete(userId));
    this.refreshing.set(userId, work);
    return work;
  }

  private async profileOf(
    settings: UpstreamSettings,
    subject: string,
    claims: Record<string, unknown>,
  ): Promise<UpstreamProfile> {
    const profile = profileFrom(subject, claims, settings.claims);
    // A code the master data knows is shown with its label there.
    const byCode = (value: UpstreamProfile['organization']) =>
      value && value.id === value.label ? value.id : undefined;
    const labels = await this.repository.masterLabels(
      settings.tenant.id,
      byCode(profile.organization),
      byCode(profile.job),
    );
    if (profile.organization && labels.organization)
      profile.organization = { ...profile.organization, label: labels.organization };
    if (profile.job && labels.job) profile.job = { ...profile.job, label: labels.job };
    return profile;
  }

  private async settingsOf(tenantId: string): Promise<UpstreamSettings> {
    const settings = await this.idps.upstreamOf(tenantId);
    if (!settings) throw new UpstreamMisconfigured('the tenant has no identity provider any more');
    return settings;
  }

  /** Except the errors named to pass. */
  private async attempt<T>(work: () => Promise<T>, passing: (new (...args: never[]) => Error)[] = []): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (passing.some((kind) => error instanceof kind)) throw error;
      throw upstreamFailure(error);
    }
  }
}
