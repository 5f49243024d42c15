import * as oidc from 'openid-client';
import {
  acceptedIdTokenAlgorithms,
  discoverUpstream,
  ID_TOKEN_ALGORITHMS,
  IdpError,
  isLoopbackHttp,
  UnsealError,
  UPSTREAM_TIMEOUT_SECONDS,
  type UpstreamSettings,
} from '@fed/identity/internal';

/** The spec's 502 `bad_gateway`. */
export class UpstreamUnreachable extends Error {
  constructor(cause: unknown) {
    super(`the identity provider could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'UpstreamUnreachable';
  }
}

/** An answer that does not check out (signature, algorithm, claims): also 502, never a sign-in. */
export class UpstreamAnswerRejected extends UpstreamUnreachable {
  constructor(cause: unknown) {
    super(cause);
    this.message = `the identity provider's answer was refused: ${cause instanceof Error ? cause.message : String(cause)}`;
    this.name = 'UpstreamAnswerRejected';
  }
}

/** No provider, a secret that does not open, a mismatched issuer: 500 `server_error`. */
export class UpstreamMisconfigured extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'UpstreamMisconfigured';
  }
}

// openid-client codes that only a configuration change fixes, not a retry.
const CONFIGURATION_CODES = new Set<string>([
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_MISSING_SERVER_METADATA',
  'OAUTH_INVALID_SERVER_METADATA',
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
]);

// openid-client codes of an answer that arrived but fails a check (signature, key, algorithm, claims).
const REJECTED_ANSWER_CODES = new Set<string>([
  'OAUTH_JWS_SIGNATURE_VERIFICATION_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
  'OAUTH_UNSUPPORTED_OPERATION',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_PARSE_ERROR',
]);

/** The upstream's outage or bad answer (502), or our tenant's configuration (500). */
export function upstreamFailure(error: unknown): UpstreamUnreachable | UpstreamMisconfigured {
  if (error instanceof UpstreamUnreachable || error instanceof UpstreamMisconfigured) return error;
  if (error instanceof UnsealError || error instanceof IdpError) {
    return new UpstreamMisconfigured(error.message, error);
  }
  if (error instanceof oidc.ResponseBodyError && ['invalid_client', 'unauthorized_client'].includes(error.error)) {
    return new UpstreamMisconfigured(`the identity provider refused our client: ${error.error}`, error);
  }
  const code = (error as { code?: unknown }).code;
  if (error instanceof oidc.ClientError && typeof code === 'string' && CONFIGURATION_CODES.has(code)) {
    return new UpstreamMisconfigured(
      `the identity provider's metadata does not match its configuration: ${error.message}`,
      error,
    );
  }
  if (typeof code === 'string' && REJECTED_ANSWER_CODES.has(code)) return new UpstreamAnswerRejected(error);
  const status = ((error as { cause?: { status?: unknown } }).cause ?? {}).status;
  if (error instanceof oidc.ClientError && status === 404) {
    return new UpstreamMisconfigured('the identity provider has no such endpoint (is the issuer right?)', error);
  }
  return new UpstreamUnreachable(error);
}

const CACHE_MS = 60 * 60_000;

interface CachedConfiguration {
  version: number;
  expiresAt: number;
  configuration: Promise<oidc.Configuration>;
}

/** Discovered metadata cached per tenant for an hour (and until its provider changes); failures are not cached. */
export class UpstreamClients {
  private readonly cache = new Map<string, CachedConfiguration>();

  constructor(private readonly now: () => number = Date.now) {}

  async configurationOf(settings: UpstreamSettings): Promise<oidc.Configuration> {
    const cached = this.cache.get(settings.tenant.id);
    if (cached && cached.version === settings.version && cached.expiresAt > this.now()) return cached.configuration;
    const configuration = this.discover(settings);
    this.cache.set(settings.tenant.id, { version: settings.version, expiresAt: this.now() + CACHE_MS, configuration });
    try {
      return await configuration;
    } catch (error) {
      if (this.cache.get(settings.tenant.id)?.configuration === configuration) this.cache.delete(settings.tenant.id);
      throw upstreamFailure(error);
    }
  }

  // The outbound rules are shared with the operator's test of a provider (libs/identity/src/idp/upstream-discovery.ts).
  private async discover(settings: UpstreamSettings): Promise<oidc.Configuration> {
    // A development provider on this machine may speak plain http; any other must use https.
    const insecure = isLoopbackHttp(settings.issuer);
    const discovered = await discoverUpstream(settings.issuer, settings.clientId);
    const { supportsPKCE: _helper, ...metadata } = discovered.serverMetadata();
    const offered = metadata.id_token_signing_alg_values_supported ?? ['RS256'];
    const algorithms = acceptedIdTokenAlgorithms(offered);
    if (algorithms.length === 0) {
      throw new UpstreamMisconfigured(
        `the identity provider signs ID tokens with ${offered.join(', ')}: none of ${ID_TOKEN_ALGORITHMS.join(', ')}`,
      );
    }
    if (!metadata.jwks_uri) throw new UpstreamMisconfigured('the identity provider publishes no jwks_uri');
    // Only accepted algorithms, so an ID token with another `alg` (none, HS256) is refused before any key lookup.
    const configuration = new oidc.Configuration(
      { ...metadata, id_token_signing_alg_values_supported: algorithms },
      settings.clientId,
      undefined,
      oidc.ClientSecretBasic(settings.clientSecret),
    );
    configuration.timeout = UPSTREAM_TIMEOUT_SECONDS;
    if (insecure) oidc.allowInsecureRequests(configuration);
    // openid-client otherwise trusts TLS for token-endpoint ID tokens; loopback http has none.
    oidc.enableNonRepudiationChecks(configuration);
    return configuration;
  }
}
