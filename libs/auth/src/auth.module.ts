import {
  type DynamicModule,
  Global,
  Inject,
  Module,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
  type Provider,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { METRICS, type Metrics, authRevocationListSize } from '@fed/observability';
import { AccessTokenGuard } from './access-token.guard';
import { AccessTokenVerifier } from './access-token.verifier';
import { CurrentRoles } from './current-roles';
import { JwksKeySet } from './jwks-key-set';
import { RevocationList } from './revocation-list';
import { VerificationCache } from './verification-cache';

/** Tuning that is not configuration of the app; the defaults suit production. */
export interface AuthOptions {
  /** Least time between two JWKS fetches (default 5 s). */
  jwksRefetchCooldownMs?: number;
  /** Age after which the JWKS is refreshed in the background (default 10 min). */
  jwksMaxAgeMs?: number;
  jwksTimeoutMs?: number;
  /** Verified tokens remembered (default 10,000; 0 turns the cache off). */
  verificationCacheSize?: number;
  /** Tokens issued longer ago than this are refused (default 24 h). */
  maxTokenAgeSeconds?: number;
}

export const AUTH_OPTIONS = Symbol.for('fed.auth.AuthOptions');
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;

const providers: Provider[] = [
  { provide: AUTH_OPTIONS, useValue: {} },
  {
    provide: RevocationList,
    inject: [SERVICE_CONFIG, AUTH_OPTIONS],
    useFactory: (config: ServiceConfig, options: AuthOptions) =>
      new RevocationList({
        clockSkewSeconds: config.auth.clockSkewSeconds,
        maxTokenAgeSeconds: options.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
      }),
  },
  {
    provide: CurrentRoles,
    inject: [SERVICE_CONFIG, AUTH_OPTIONS],
    useFactory: (config: ServiceConfig, options: AuthOptions) =>
      new CurrentRoles({
        clockSkewSeconds: config.auth.clockSkewSeconds,
        maxTokenAgeSeconds: options.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
      }),
  },
  {
    provide: JwksKeySet,
    inject: [SERVICE_CONFIG, AUTH_OPTIONS],
    useFactory: (config: ServiceConfig, options: AuthOptions) =>
      new JwksKeySet({
        url: config.auth.jwksUrl,
        refetchCooldownMs: options.jwksRefetchCooldownMs,
        maxAgeMs: options.jwksMaxAgeMs,
        timeoutMs: options.jwksTimeoutMs,
      }),
  },
  {
    provide: AccessTokenVerifier,
    inject: [SERVICE_CONFIG, AUTH_OPTIONS, JwksKeySet, RevocationList, CurrentRoles],
    useFactory: (
      config: ServiceConfig,
      options: AuthOptions,
      keys: JwksKeySet,
      revocations: RevocationList,
      roles: CurrentRoles,
    ) =>
      new AccessTokenVerifier(
        {
          issuer: config.auth.issuer,
          clockSkewSeconds: config.auth.clockSkewSeconds,
          maxTokenAgeSeconds: options.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
        },
        keys,
        revocations,
        new VerificationCache(options.verificationCacheSize),
        roles,
      ),
  },
  AccessTokenGuard,
  { provide: APP_GUARD, useExisting: AccessTokenGuard },
];

/** The global token guard; needs SERVICE_CONFIG and SIGNALS from the host, METRICS optional. */
@Global()
@Module({ providers, exports: [AccessTokenVerifier, RevocationList, CurrentRoles, AccessTokenGuard] })
export class AuthModule implements OnModuleInit, OnModuleDestroy {
  static forRoot(options: AuthOptions = {}): DynamicModule {
    return { module: AuthModule, providers: [{ provide: AUTH_OPTIONS, useValue: options }] };
  }

  private unmeasure: (() => void) | undefined;

  constructor(
    private readonly revocations: RevocationList,
    private readonly roles: CurrentRoles,
    private readonly keys: JwksKeySet,
    @Inject(SIGNALS) private readonly signals: Signals,
    @Optional() @Inject(METRICS) private readonly metrics?: Metrics,
  ) {}

  async onModuleInit(): Promise<void> {
    const revocations = this.revocations;
    this.unmeasure = this.metrics
      ?.metric(authRevocationListSize)
      .measure(() => revocations.revokedTokenCount + revocations.invalidatedSubjectCount);
    await Promise.all([
      this.revocations.attach(this.signals),
      this.roles.attach(this.signals),
      this.keys.attach(this.signals),
    ]);
  }

  async onModuleDestroy(): Promise<void> {
    this.unmeasure?.();
    await Promise.all([this.revocations.detach(), this.roles.detach(), this.keys.detach()]);
  }
}
