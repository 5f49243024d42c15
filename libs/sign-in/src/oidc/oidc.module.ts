import { Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { COUNTERS, type Counters } from '@fed/bus';
import { protectedResourceUrls } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import {
  ClientRepository,
  ClientsModule,
  identityEntities,
  KeyEncryption,
  SigningKeysModule,
  SigningKeysService,
  UserRepository,
  UsersModule,
} from '@fed/identity/internal';
import { ConsentRepository } from '../consents/consent.repository';
import { IdentityProvidersModule } from '../brokering/identity-providers.module';
import { ArtifactStore } from './artifacts/artifact-store';
import { ClientCache } from './client-cache';
import { DynamicRegistrationEndpoint } from './registration/dynamic-registration.endpoint';
import { MetadataDocumentFetcher } from './registration/metadata-document-fetcher';
import { SelfRegisteredClients } from './registration/self-registered-clients';
import { DiscoveryController } from './discovery.controller';
import { InteractionController } from './interactions/interaction.controller';
import { PasswordSignIn } from './interactions/password-sign-in';
import { BruteForceProtection } from '../brute-force/brute-force-protection';
import { LocalTokenVerifier } from './local-token-verifier';
import { MarketplaceTokenController } from './marketplace-token.controller';
import { OIDC_PROVIDER } from './oidc.tokens';
import { createOidcProvider } from './oidc-provider.factory';
import { RefreshTokenRepository } from './refresh-tokens/refresh-token.repository';
import { RevocationController } from './revocation/revocation.controller';
import { BrowserSessions } from './sign-out/browser-sessions';
import { SignOutController } from './sign-out/sign-out.controller';
import { SignOutReturn } from './sign-out/sign-out-return';
import { TokenRevocations } from './revocation/token-revocations';
import { TokenIssuer } from './token-issuer';
import { AuthorizeController } from './authorize.controller';
import { clientCredentialsGrant } from './grants/client-credentials.grant';
import { userGrants } from './grants/user-grants';
import { TOKEN_GRANTS, TokenEndpoint, type TokenGrants } from './token-endpoint/token-endpoint';
import { UserinfoController } from './userinfo.controller';
import { signInEntities } from '../sign-in.entities';

const SWEEP_INTERVAL_MS = 10 * 60_000;

/** Expired artifacts, tokens and revocations, and unused self-registered clients. */
@Injectable()
export class ExpiredArtifactsSweeper implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly artifacts: ArtifactStore,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly revocations: TokenRevocations,
    private readonly clients: ClientRepository,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    try {
      const [artifacts, { refreshTokens, tokenFamilies }, revocations] = await Promise.all([
        this.artifacts.sweep(),
        this.refreshTokens.sweep(),
        this.revocations.sweep(),
      ]);
      // After the families: a client whose last family just went is deleted in this same sweep.
      const clients = await this.clients.deleteUnusedSelfRegistered(this.config.registration.unusedDays);
      this.logger.debug(
        { artifacts, refreshTokens, tokenFamilies, revocations, clients },
        'expired OpenID artifacts deleted',
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'sweeping expired OpenID artifacts failed');
    }
  }
}

/** The OpenID provider of spec document 1. */
@Module({
  imports: [
    TypeOrmModule.forFeature([...identityEntities, ...signInEntities]),
    SigningKeysModule,
    ClientsModule,
    UsersModule,
    IdentityProvidersModule,
  ],
  controllers: [
    DiscoveryController,
    AuthorizeController,
    InteractionController,
    UserinfoController,
    RevocationController,
    MarketplaceTokenController,
    SignOutController,
  ],
  providers: [
    BruteForceProtection,
    ConsentRepository,
    ArtifactStore,
    RefreshTokenRepository,
    TokenRevocations,
    LocalTokenVerifier,
    PasswordSignIn,
    SignOutReturn,
    BrowserSessions,
    ExpiredArtifactsSweeper,
    {
      provide: ClientCache,
      inject: [ClientRepository, COUNTERS, SERVICE_CONFIG, LOGGER],
      useFactory: (clients: ClientRepository, counters: Counters, config: ServiceConfig, logger: Logger) => {
        const documents = new MetadataDocumentFetcher({
          allowPrivateAddresses: config.registration.allowPrivateAddresses,
          caFile: config.registration.metadataCaFile,
        });
        const budget = {
          perHostPerHour: config.registration.metadataFetchesPerHostPerHour,
          perAddressPerHour: config.registration.metadataFetchesPerAddressPerHour,
        };
        return new ClientCache(new SelfRegisteredClients(clients, documents, counters, budget, logger));
      },
    },
    DynamicRegistrationEndpoint,
    {
      provide: TokenIssuer,
      inject: [SigningKeysService, SERVICE_CONFIG],
      useFactory: (keys: SigningKeysService, config: ServiceConfig) =>
        new TokenIssuer(keys, {
          issuer: config.auth.issuer,
          tokenTtlSeconds: config.signingKeys.tokenTtlSeconds,
          serviceAccountDomain: config.signingKeys.serviceAccountDomain,
        }),
    },
    TokenEndpoint,
    {
      provide: TOKEN_GRANTS,
      inject: [UserRepository, ArtifactStore, RefreshTokenRepository, TokenRevocations, TokenIssuer, SERVICE_CONFIG],
      useFactory: (
        users: UserRepository,
        artifacts: ArtifactStore,
        refreshTokens: RefreshTokenRepository,
        revocations: TokenRevocations,
        issuer: TokenIssuer,
        config: ServiceConfig,
      ): TokenGrants => {
        const settings = {
          refreshTokenTtlSeconds: config.sessions.refreshTokenTtlSeconds,
          maxSeconds: config.sessions.maxSeconds,
        };
        const grants = userGrants({ users, artifacts, refreshTokens, revocations, issuer, settings });
        return {
          authorization_code: grants.authorizationCode,
          refresh_token: grants.refreshToken,
          client_credentials: clientCredentialsGrant(issuer, protectedResourceUrls(config.http.publicUrl)),
        };
      },
    },
    {
      provide: OIDC_PROVIDER,
      inject: [
        ClientRepository,
        ClientCache,
        UserRepository,
        ConsentRepository,
        ArtifactStore,
        SigningKeysService,
        KeyEncryption,
        SERVICE_CONFIG,
        LOGGER,
      ],
      useFactory: async (
        clients: ClientRepository,
        clientCache: ClientCache,
        users: UserRepository,
        consents: ConsentRepository,
        artifacts: ArtifactStore,
        keys: SigningKeysService,
        encryption: KeyEncryption,
        config: ServiceConfig,
        logger: Logger,
      ) => {
        await keys.ensureSigningKey();
        // A KEY_ENCRYPTION_KEY that cannot open the stored key fails the start, not the first token.
        await keys.activeSigningKey();
        return createOidcProvider(
          { clients, clientCache, users, consents, artifacts },
          {
            issuer: config.auth.issuer,
            session: {
              refreshTokenTtlSeconds: config.sessions.refreshTokenTtlSeconds,
              maxSeconds: config.sessions.maxSeconds,
            },
            cookieKey: encryption.derive('oidc-cookies'),
            trustProxyHops: config.http.trustProxyHops,
            resources: protectedResourceUrls(config.http.publicUrl),
            onServerError: (error, route) => logger.error({ err: error, route }, 'OpenID provider error'),
          },
        );
      },
    },
  ],
})
export class OidcModule {}
