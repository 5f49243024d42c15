import * as oidc from 'openid-client';
import { IdpError, isLoopbackHttp, UnsealError, type UpstreamSettings } from '@fed/identity/internal';

/** The upstream could not be reached or did not answer usefully: the spec's 502 `bad_gateway`. */
export class UpstreamUnreachable extends Error {
  constructor(cause: unknown) {
    super(`the identity provider could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'UpstreamUnreachable';
  }
}

/**
 * The upstream answered, but its answer does not check out: an ID token not signed by a key of its JWKS,
 * signed with an algorithm outside ID_TOKEN_ALGORITHMS (`none`, HS256), or with claims that do not match.
 * A bad gateway too (502), never a sign-in.
 */
export class UpstreamAnswerRejected extends UpstreamUnreachable {
  constructor(cause: unknown) {
    super(cause);
    this.message = `the identity provider's answer was refused: ${cause instanceof Error ? cause.message : String(cause)}`;
    this.name = 'UpstreamAnswerRejected';
  }
}

/**
 * The algorithms an upstream ID token may be signed with, whatever the provider's metadata offers:
 * asymmetric ones, so only the provider's private key can sign and its JWKS can check.
 */
export const ID_TOKEN_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** The tenant's provider is configured wrongly (none, a secret that does not open, an issuer that does not match): 500 `server_error`. */
export class UpstreamMisconfigured extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'UpstreamMisconfigured';
  }
}

// openid-client's codes of answers that only a configuration change fixes, not a retry (the issuer
// of the discovery document is not the configured one, metadata missing, a non-https endpoint).
const CONFIGURATION_CODES = new Set<string>([
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_MISSING_SERVER_METADATA',
  'OAUTH_INVALID_SERVER_METADATA',
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
]);

// openid-client's codes of an answer that arrived but fails a check: a JWS signature or key that is not
// the provider's, an algorithm not accepted, claims (iss, aud, nonce, exp) that do not match.
const REJECTED_ANSWER_CODES = new Set<string>([
  'OAUTH_JWS_SIGNATURE_VERIFICATION_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
  'OAUTH_UNSUPPORTED_OPERATION',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_PARSE_ERROR',
]);

/** Whether a failure talking to the upstream is its outage or bad answer (502) or our tenant's configuration (500). */
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
const TIMEOUT_SECONDS = 10;

interface CachedConfiguration {
  version: number;
  expiresAt: number;
  configuration: Promise<oidc.Configuration>;
}

/**
 * The relying party's view of each tenant's upstream: its discovered metadata, cached per tenant for an
 * hour (and until the tenant's provider changes); a failed discovery is not cached. The discovery
 * checks that the document's `issuer` is exactly the configured one; ID tokens are checked against it,
 * and their signature against its JWKS.
 */
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

  private async discover(settings: UpstreamSettings): Promise<oidc.Configuration> {
    // A development provider on this machine may speak plain http; any other must use https.
    const insecure = isLoopbackHttp(settings.issuer);
    const discovered = await oidc.discovery(new URL(settings.issuer), settings.clientId, undefined, undefined, {
      timeout: TIMEOUT_SECONDS,
      execute: insecure ? [oidc.allowInsecureRequests] : [],
    });
    const { supportsPKCE: _helper, ...metadata } = discovered.serverMetadata();
    // OpenID Connect's default when the metadata names none.
    const offered = metadata.id_token_signing_alg_values_supported ?? ['RS256'];
    const algorithms = offered.filter((alg) => ID_TOKEN_ALGORITHMS.includes(alg));
    if (algorithms.length === 0) {
      throw new UpstreamMisconfigured(
        `the identity provider signs ID tokens with ${offered.join(', ')}: none of ${ID_TOKEN_ALGORITHMS.join(', ')}`,
      );
    }
    if (!metadata.jwks_uri) throw new UpstreamMisconfigured('the identity provider publishes no jwks_uri');
    // Only the accepted algorithms: an ID token with another `alg` (none, HS256) is refused before any key is looked at.
    const configuration = new oidc.Configuration(
      { ...metadata, id_token_signing_alg_values_supported: algorithms },
      settings.clientId,
      undefined,
      oidc.ClientSecretBasic(settings.clientSecret),
    );
    configuration.timeout = TIMEOUT_SECONDS;
    if (insecure) oidc.allowInsecureRequests(configuration);
    // openid-client checks an ID token from the token endpoint for its claims only, trusting TLS for the
    // rest; a loopback http provider has no TLS, and a token must be the provider's whatever the transport.
    oidc.enableNonRepudiationChecks(configuration);
    return configuration;
  }
}
