import * as oidc from 'openid-client';
import { IDP_CALLBACK_PATH, OIDC_BASE_PATH } from '../pages/paths';
import { type TenantKey } from '../tenants/tenant.repository';
import { IdpError } from './idp.errors';
import { UnsealError } from './sealed-box';
import { isLoopbackHttp } from './tenant-idp.rules';
import { type TenantIdpsService } from './tenant-idps.service';
import {
  ID_TOKEN_ALGORITHMS,
  UPSTREAM_TIMEOUT_SECONDS,
  acceptedIdTokenAlgorithms,
  discoverUpstream,
  discoveryUrlOf,
} from './upstream-discovery';

export const idpCheckProblems = [
  'tenant_disabled',
  'client_secret_unreadable',
  'client_secret_not_checked',
  'discovery_unreachable',
  'discovery_timeout',
  'discovery_not_found',
  'discovery_invalid',
  'insecure_endpoint',
  'issuer_mismatch',
  'missing_endpoint',
  'no_accepted_algorithm',
  'no_pkce_s256',
  'jwks_unreachable',
  'jwks_invalid',
  'no_usable_key',
] as const;
export type IdpCheckProblemCode = (typeof idpCheckProblems)[number];

export interface IdpCheckProblem {
  code: IdpCheckProblemCode;
  message: string;
}

/** What the discovery document says (values cut to a sane length: they come from the network). */
export interface DiscoveredProvider {
  issuer: string | null;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userinfoEndpoint: string | null;
  jwksUri: string | null;
  endSessionEndpoint: string | null;
  /** `id_token_signing_alg_values_supported` (RS256 when absent, as brokering reads it). */
  idTokenSigningAlgorithms: string[];
  /** Those of them brokering accepts (asymmetric only). */
  acceptedAlgorithms: string[];
  codeChallengeMethods: string[];
  scopesSupported: string[];
}

/** A key of the provider's JWKS: never its material. */
export interface DiscoveredKey {
  kid: string | null;
  kty: string | null;
  alg: string | null;
  use: string | null;
  /** Could verify an ID token signed with an accepted algorithm. */
  usable: boolean;
}

export interface IdpCheckReport {
  /** No problem: a sign-in would reach the provider's login page and could verify its answer. */
  ok: boolean;
  tenantId: string;
  tenant: string;
  issuer: string;
  discoveryUrl: string;
  /** null when no document came back. */
  issuerMatches: boolean | null;
  discovered: DiscoveredProvider | null;
  keys: DiscoveredKey[] | null;
  problems: IdpCheckProblem[];
  /** The URL to register at the provider. */
  redirectUri: string;
  /** How to start a real brokered sign-in; null while the tenant is disabled. */
  signIn: { authorizationEndpoint: string; parameters: { idp_hint: string; prompt: 'login' } } | null;
  checkedAt: Date;
}

const MAX_TEXT = 2000;
const MAX_LIST = 50;
const MAX_KEYS = 100;
const MAX_JWKS_BYTES = 1024 * 1024;

const text = (value: unknown, max = MAX_TEXT): string | null =>
  typeof value === 'string' ? (value.length > max ? `${value.slice(0, max)}...` : value) : null;
const list = (value: unknown): string[] =>
  Array.isArray(value)
    ? value
        .filter((item): item is string => typeof item === 'string')
        .slice(0, MAX_LIST)
        .map((item) => text(item, 100) as string)
    : [];

// The key type each accepted algorithm needs.
const keyTypeOf = (alg: string) => (alg.startsWith('ES') ? 'EC' : alg.startsWith('Ed') ? 'OKP' : 'RSA');

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
};

/**
 * The console's "test sign-in" (and `platformctl tenants idp test`): fetches the provider's discovery document and
 * JWKS under brokering's outbound rules and says what it found, without a user. Never throws for the provider's
 * faults: they are the report.
 */
export class TenantIdpCheck {
  /** What to register at the provider (one URI for every tenant). */
  readonly redirectUri: string;

  constructor(
    private readonly idps: TenantIdpsService,
    /** {auth_url}: where the sign-in starts and the provider sends the browser back to. */
    private readonly authUrl: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.redirectUri = `${authUrl}${IDP_CALLBACK_PATH}`;
  }

  async check(key: TenantKey): Promise<IdpCheckReport> {
    const view = await this.idps.show(key);
    const problems: IdpCheckProblem[] = [];
    if (!view.tenantEnabled) {
      problems.push({ code: 'tenant_disabled', message: 'the tenant is disabled: its sign-ins are refused (403)' });
    }
    await this.checkSecret(view.tenantId, problems);
    const report: IdpCheckReport = {
      ok: false,
      tenantId: view.tenantId,
      tenant: view.tenant,
      issuer: view.issuer,
      discoveryUrl: discoveryUrlOf(view.issuer),
      issuerMatches: null,
      discovered: null,
      keys: null,
      problems,
      redirectUri: this.redirectUri,
      signIn: view.tenantEnabled
        ? {
            authorizationEndpoint: `${this.authUrl}${OIDC_BASE_PATH}/authorize`,
            parameters: { idp_hint: view.tenant, prompt: 'login' },
          }
        : null,
      checkedAt: this.now(),
    };
    const metadata = await this.discover(view.issuer, view.clientId, report);
    if (metadata) {
      report.discovered = this.describeMetadata(metadata, problems);
      if (report.discovered.jwksUri) {
        report.keys = await this.keysAt(report.discovered.jwksUri, view.issuer, report.discovered, problems);
      }
    }
    report.ok = problems.length === 0;
    return report;
  }

  /** The stored secret must open, or a sign-in fails with 500. */
  private async checkSecret(tenantId: string, problems: IdpCheckProblem[]): Promise<void> {
    try {
      await this.idps.upstreamOf(tenantId);
    } catch (error) {
      if (error instanceof UnsealError) {
        problems.push({
          code: 'client_secret_unreadable',
          message: 'the stored client secret does not open with KEY_ENCRYPTION_KEY: set the secret again',
        });
      } else if (error instanceof IdpError && error.code === 'no_encryption_key') {
        problems.push({
          code: 'client_secret_not_checked',
          message: 'KEY_ENCRYPTION_KEY is not set here, so the stored client secret could not be checked',
        });
      } else {
        throw error;
      }
    }
  }

  private async discover(
    issuer: string,
    clientId: string,
    report: IdpCheckReport,
  ): Promise<Record<string, unknown> | null> {
    const problems = report.problems;
    try {
      const configuration = await discoverUpstream(issuer, clientId);
      report.issuerMatches = true;
      return configuration.serverMetadata() as unknown as Record<string, unknown>;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const cause = (error as { cause?: unknown }).cause as
        { attribute?: unknown; body?: unknown; status?: unknown } | undefined;
      if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' && cause?.attribute === 'issuer') {
        // The document came back: the rest of it is still worth reporting.
        const body = (cause.body ?? {}) as Record<string, unknown>;
        report.issuerMatches = false;
        problems.push({
          code: 'issuer_mismatch',
          message: `the discovery document names the issuer ${JSON.stringify(text(body.issuer))}, not ${JSON.stringify(issuer)}: they must be equal`,
        });
        return body;
      }
      if (code === 'OAUTH_HTTP_REQUEST_FORBIDDEN' || code === 'OAUTH_REQUEST_PROTOCOL_FORBIDDEN') {
        problems.push({
          code: 'insecure_endpoint',
          message: `the discovery document was not fetched: ${describe(error)}`,
        });
      } else if (code === 'OAUTH_TIMEOUT') {
        problems.push({
          code: 'discovery_timeout',
          message: `no discovery document within ${UPSTREAM_TIMEOUT_SECONDS} s at ${report.discoveryUrl}`,
        });
      } else if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && typeof cause?.status === 'number') {
        problems.push(
          cause.status === 404
            ? { code: 'discovery_not_found', message: `${report.discoveryUrl} answered 404: is the issuer right?` }
            : {
                code: 'discovery_unreachable',
                message: `${report.discoveryUrl} answered HTTP ${cause.status} (redirects are not followed)`,
              },
        );
      } else if (error instanceof oidc.ClientError && typeof code === 'string' && code !== 'OAUTH_TIMEOUT') {
        problems.push({ code: 'discovery_invalid', message: `the discovery document was refused: ${describe(error)}` });
      } else {
        problems.push({
          code: 'discovery_unreachable',
          message: `${report.discoveryUrl} could not be reached: ${describe(error)}`,
        });
      }
      return null;
    }
  }

  private describeMetadata(metadata: Record<string, unknown>, problems: IdpCheckProblem[]): DiscoveredProvider {
    const offered =
      metadata.id_token_signing_alg_values_supported === undefined
        ? ['RS256']
        : list(metadata.id_token_signing_alg_values_supported);
    const discovered: DiscoveredProvider = {
      issuer: text(metadata.issuer),
      authorizationEndpoint: text(metadata.authorization_endpoint),
      tokenEndpoint: text(metadata.token_endpoint),
      userinfoEndpoint: text(metadata.userinfo_endpoint),
      jwksUri: text(metadata.jwks_uri),
      endSessionEndpoint: text(metadata.end_session_endpoint),
      idTokenSigningAlgorithms: offered,
      acceptedAlgorithms: acceptedIdTokenAlgorithms(offered),
      codeChallengeMethods: list(metadata.code_challenge_methods_supported),
      scopesSupported: list(metadata.scopes_supported),
    };
    for (const [field, name] of [
      ['authorizationEndpoint', 'authorization_endpoint'],
      ['tokenEndpoint', 'token_endpoint'],
      ['jwksUri', 'jwks_uri'],
    ] as const) {
      if (!discovered[field]) {
        problems.push({ code: 'missing_endpoint', message: `the discovery document has no ${name}` });
      }
    }
    if (discovered.acceptedAlgorithms.length === 0) {
      problems.push({
        code: 'no_accepted_algorithm',
        message: `the provider signs ID tokens with ${offered.join(', ') || 'nothing it names'}: none of ${ID_TOKEN_ALGORITHMS.join(', ')}`,
      });
    }
    if (discovered.codeChallengeMethods.length > 0 && !discovered.codeChallengeMethods.includes('S256')) {
      problems.push({
        code: 'no_pkce_s256',
        message: 'the provider does not list PKCE S256, which every sign-in sends',
      });
    }
    return discovered;
  }

  /** The same rules as openid-client under brokering: https (http only beside a loopback issuer), 10 s, no redirect. */
  private async keysAt(
    jwksUri: string,
    issuer: string,
    discovered: DiscoveredProvider,
    problems: IdpCheckProblem[],
  ): Promise<DiscoveredKey[] | null> {
    let url: URL;
    try {
      url = new URL(jwksUri);
    } catch {
      problems.push({ code: 'jwks_invalid', message: 'jwks_uri is not a URL' });
      return null;
    }
    const insecureAllowed = isLoopbackHttp(issuer);
    if (url.protocol !== 'https:' && !(insecureAllowed && url.protocol === 'http:')) {
      problems.push({
        code: 'insecure_endpoint',
        message: `the JWKS was not fetched: only https is allowed (${jwksUri})`,
      });
      return null;
    }
    let body: string;
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json, application/jwk-set+json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_SECONDS * 1000),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        problems.push({
          code: 'jwks_unreachable',
          message: `${jwksUri} answered HTTP ${response.status} (redirects are not followed)`,
        });
        return null;
      }
      body = await boundedText(response, MAX_JWKS_BYTES);
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      problems.push({
        code: error instanceof JwksTooLarge ? 'jwks_invalid' : 'jwks_unreachable',
        message: timedOut
          ? `no JWKS within ${UPSTREAM_TIMEOUT_SECONDS} s at ${jwksUri}`
          : `${jwksUri} could not be read: ${describe(error)}`,
      });
      return null;
    }
    let keys: unknown;
    try {
      keys = (JSON.parse(body) as { keys?: unknown }).keys;
    } catch {
      keys = undefined;
    }
    if (!Array.isArray(keys)) {
      problems.push({ code: 'jwks_invalid', message: 'the JWKS is not a JSON object with a "keys" array' });
      return null;
    }
    const described = keys.slice(0, MAX_KEYS).map((raw: unknown) => {
      const key = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      const kty = text(key.kty, 20);
      const alg = text(key.alg, 100);
      const use = text(key.use, 20);
      const usable =
        (use === null || use === 'sig') &&
        discovered.acceptedAlgorithms.some(
          (accepted) => keyTypeOf(accepted) === kty && (alg === null || alg === accepted),
        );
      return { kid: text(key.kid, 200), kty, alg, use, usable };
    });
    if (!described.some((key) => key.usable)) {
      problems.push({
        code: 'no_usable_key',
        message: `the JWKS has no signing key for ${discovered.acceptedAlgorithms.join(', ') || 'an accepted algorithm'}`,
      });
    }
    return described;
  }
}

class JwksTooLarge extends Error {
  constructor(max: number) {
    super(`the JWKS is larger than ${max} bytes`);
  }
}

async function boundedText(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new JwksTooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
