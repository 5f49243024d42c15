import { isPrintableLine } from '@fed/contracts';
import { Checks, RefuseUnknownFields, withCode } from '@fed/server';
import { IsDefined, IsOptional, ValidateBy } from 'class-validator';
import { mappedFields } from './claim-mapping';
import {
  type DiscoveredKey,
  type DiscoveredProvider,
  type IdpCheckProblemCode,
  type IdpCheckReport,
} from './tenant-idp-check';
import { type TenantIdpView } from './tenant-idps.service';

/** The upstream claim that fills each field of a user (and of userinfo's `idp`). */
export interface IdentityProviderClaims {
  name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: string;
  organization?: string;
  job?: string;
  bio?: string;
}

/** The client secret is write-only: stored sealed, never returned. */
export interface IdentityProviderResponse {
  tenantId: string;
  tenant: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  /** E-mail domains whose users the login page sends to this provider. */
  domains: string[];
  claims: IdentityProviderClaims;
  /** The redirect URI to register at the provider. */
  redirectUri: string;
  createdAt: string;
  updatedAt: string;
}

export interface IdentityProviderDeletedResponse {
  tenantId: string;
  deleted: true;
}

export interface IdentityProviderProblemResponse {
  code: IdpCheckProblemCode;
  message: string;
}

export interface IdentityProviderSignInResponse {
  /** The platform's authorization endpoint: the console adds its own client_id, redirect_uri, PKCE and state. */
  authorizationEndpoint: string;
  parameters: { idp_hint: string; prompt: 'login' };
}

export interface IdentityProviderTestResponse {
  /** No problem found: a sign-in would reach the provider and could verify its answer. */
  ok: boolean;
  tenantId: string;
  tenant: string;
  issuer: string;
  discoveryUrl: string;
  issuerMatches: boolean | null;
  discovered: DiscoveredProvider | null;
  keys: DiscoveredKey[] | null;
  problems: IdentityProviderProblemResponse[];
  redirectUri: string;
  /** null while the tenant is disabled. */
  signIn: IdentityProviderSignInResponse | null;
  checkedAt: string;
}

export function toIdentityProviderResponse(view: TenantIdpView, redirectUri: string): IdentityProviderResponse {
  return {
    tenantId: view.tenantId,
    tenant: view.tenant,
    issuer: view.issuer,
    clientId: view.clientId,
    scopes: view.scopes,
    domains: view.domains,
    claims: { ...view.claims },
    redirectUri,
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
  };
}

export function toIdentityProviderTestResponse(report: IdpCheckReport): IdentityProviderTestResponse {
  return { ...report, checkedAt: report.checkedAt.toISOString() };
}

const badParameter = (message: string) => withCode('invalid_parameter', message);

const printable = (max: number) => (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= max && isPrintableLine(value);

function Printable(name: string, max: number, message: string): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: printable(max) } }, badParameter(message));
}

function ListOf(name: string, maxItems: number, maxLength: number, message: string): PropertyDecorator {
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) && value.length <= maxItems && value.every(printable(maxLength)),
      },
    },
    badParameter(message),
  );
}

const CLAIMS_MESSAGE = `claims must map some of ${mappedFields.join(', ')} to claim names of 1-200 visible characters`;

function isClaimMapping(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(
    ([field, claim]) => (mappedFields as readonly string[]).includes(field) && printable(200)(claim),
  );
}

/**
 * As `platformctl tenants idp set`: the whole connection, except that an absent `clientSecret` keeps the stored
 * secret and absent `domains` keep the stored list. Absent `scopes` and `claims` are the defaults.
 */
@RefuseUnknownFields()
export class PutIdentityProviderBody {
  /** Compared exactly with the discovery document's and every ID token's `iss`; https (http only for localhost). */
  @Checks(
    IsDefined(badParameter('issuer is required')),
    Printable('isIssuer', 2000, 'issuer must be an absolute URL of at most 2000 printable characters'),
  )
  issuer!: string;

  @Checks(
    IsDefined(badParameter('clientId is required')),
    Printable('isClientId', 256, 'clientId must be 1-256 printable characters'),
  )
  clientId!: string;

  /** Write-only; required the first time. */
  @IsOptional()
  @Printable('isClientSecret', 1024, 'clientSecret must be 1-1024 printable characters')
  clientSecret?: string;

  /** Default `openid profile email`; must include `openid`. */
  @IsOptional()
  @ListOf('isScopeList', 30, 200, 'scopes must be at most 30 OAuth scope tokens')
  scopes?: string[];

  /** Replaces the list; `[]` removes every domain. */
  @IsOptional()
  @ListOf('isDomainList', 100, 253, 'domains must be at most 100 e-mail domains')
  domains?: string[];

  @IsOptional()
  @ValidateBy({ name: 'isClaimMapping', validator: { validate: isClaimMapping } }, badParameter(CLAIMS_MESSAGE))
  claims?: IdentityProviderClaims;
}
