import * as oidc from 'openid-client';
import { IdpError } from './idp.errors';
import { UnsealError } from './sealed-box';
import { isLoopbackHttp } from './tenant-idp.rules';
import { type UpstreamSettings } from './tenant-idps.service';

/** The upstream could not be reached or did not answer usefully: the spec's 502 `bad_gateway`. */
export class UpstreamUnreachable extends Error {
  constructor(cause: unknown) {
    super(`the identity provider could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'UpstreamUnreachable';
  }
}

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

/** Whether a failure talking to the upstream is its outage (502) or our tenant's configuration (500). */
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
 * checks that the document's `issuer` is exactly the configured one; ID tokens are checked against it.
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

  private discover(settings: UpstreamSettings): Promise<oidc.Configuration> {
    return oidc.discovery(
      new URL(settings.issuer),
      settings.clientId,
      undefined,
      oidc.ClientSecretBasic(settings.clientSecret),
      {
        timeout: TIMEOUT_SECONDS,
        // A development provider on this machine may speak plain http; any other must use https.
        execute: isLoopbackHttp(settings.issuer) ? [oidc.allowInsecureRequests] : [],
      },
    );
  }
}
