import { isPrintableLine } from '@fed/contracts';
import { type ClaimMapping, defaultClaimMapping, mappedFields } from './claim-mapping';
import { IdpError } from './idp.errors';

export interface TenantIdpSettings {
  issuer: string;
  clientId: string;
  /** Required for a new provider; absent: the stored one is kept. */
  clientSecret?: string;
  /** Default `openid profile email`; must include `openid`. */
  scopes?: string[];
  domains?: string[];
  /** Upstream claim names, for the fields that differ from the defaults (any field name: checked here). */
  claims?: Partial<Record<string, string>> | Partial<ClaimMapping>;
}

export interface ValidTenantIdpSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes: string[];
  domains: string[];
  claims: ClaimMapping;
}

export const DEFAULT_IDP_SCOPES = ['openid', 'profile', 'email'];
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
// RFC 6749 3.3 scope-token.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CLAIM_NAME = /^[\x21-\x7E]{1,200}$/;

function validIssuer(issuer: string): string {
  // The URL parser drops tabs and newlines: an issuer stored with one would never match the upstream's `iss`.
  if (typeof issuer !== 'string' || issuer.length > 2000 || !isPrintableLine(issuer) || issuer.trim() !== issuer) {
    throw new IdpError('invalid_issuer', 'issuer must be an absolute URL of at most 2000 printable characters');
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new IdpError('invalid_issuer', 'issuer must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw new IdpError('invalid_issuer', 'issuer must use https (http only for localhost)');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new IdpError('invalid_issuer', 'issuer must have no query, fragment or credentials');
  }
  // Kept as written: the upstream's `iss` is compared with it exactly.
  return issuer;
}

export function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

function validScopes(scopes: readonly string[] | undefined): string[] {
  const list = [...new Set(scopes ?? DEFAULT_IDP_SCOPES)];
  if (list.length > 30 || list.some((scope) => !SCOPE_TOKEN.test(scope))) {
    throw new IdpError('invalid_scopes', 'scopes must be at most 30 OAuth scope tokens');
  }
  if (!list.includes('openid')) throw new IdpError('invalid_scopes', 'scopes must include openid');
  return list;
}

function validDomains(domains: readonly string[] | undefined): string[] {
  const list = [...new Set((domains ?? []).map((domain) => domain.trim().toLowerCase()))];
  if (list.length > 100) throw new IdpError('invalid_domain', 'at most 100 e-mail domains');
  const wrong = list.find((domain) => !DOMAIN.test(domain));
  if (wrong !== undefined) throw new IdpError('invalid_domain', `not an e-mail domain: ${JSON.stringify(wrong)}`);
  return list;
}

function validClaims(claims: TenantIdpSettings['claims']): ClaimMapping {
  const mapping: ClaimMapping = { ...defaultClaimMapping };
  for (const [field, claim] of Object.entries(claims ?? {})) {
    if (!(mappedFields as readonly string[]).includes(field)) {
      throw new IdpError('invalid_claims', `unknown field ${JSON.stringify(field)}; one of ${mappedFields.join(', ')}`);
    }
    if (typeof claim !== 'string' || !CLAIM_NAME.test(claim)) {
      throw new IdpError('invalid_claims', `the claim for ${field} must be 1-200 visible characters`);
    }
    mapping[field as keyof ClaimMapping] = claim;
  }
  return mapping;
}

/** The same rules for every way in (realm file, platformctl); every value is hostile input. */
export function validateIdpSettings(settings: TenantIdpSettings): ValidTenantIdpSettings {
  const issuer = validIssuer(settings.issuer);
  const clientId = settings.clientId;
  if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 256 || !isPrintableLine(clientId)) {
    throw new IdpError('invalid_client_id', 'client id must be 1-256 printable characters');
  }
  const secret = settings.clientSecret;
  if (secret !== undefined && (secret.length === 0 || secret.length > 1024 || !isPrintableLine(secret))) {
    throw new IdpError('invalid_client_secret', 'client secret must be 1-1024 printable characters');
  }
  return {
    issuer,
    clientId,
    ...(secret !== undefined ? { clientSecret: secret } : {}),
    scopes: validScopes(settings.scopes),
    domains: validDomains(settings.domains),
    claims: validClaims(settings.claims),
  };
}
