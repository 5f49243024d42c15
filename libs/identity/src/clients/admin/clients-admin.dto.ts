import { type NumberedPageEnvelope, isPrintableLine } from '@fed/contracts';
import {
  Checks,
  IsNotBlank,
  IsStorableText,
  MaxCharacters,
  NumberedPageQueryDto,
  RefuseUnknownFields,
  withCode,
} from '@fed/server';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsString,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import {
  type ClientRegistrationKind,
  type PublicationStatus,
  isClientIdShaped,
  isPublicClient,
  publicationStatuses,
} from '../client.entity';
import { type ClientChanges, type ClientView } from '../clients.service';
import { type ClientRegistration } from '../client-registration';

// The request's shapes; the registration's own rules (client id, grants, exact https redirect URIs, scopes, who may
// hold platform:manage) are validateRegistration's, shared with `platformctl clients` and realm files.

const refusal = (message: string) => withCode('invalid_parameter', message);
const MAX_LISTED = 50;
const MAX_TEXT = 2000;
const FILTER_MESSAGE = (name: string) => `${name} must be 1-100 characters of text`;

/** Validated when present: `null` is refused rather than read as absent. */
const IfPresent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** @openapi {"type": "string", "minLength": 1, "maxLength": 100} */
function Filter(name: string): PropertyDecorator {
  return Checks(
    IsString(refusal(FILTER_MESSAGE(name))),
    IsNotBlank(refusal(FILTER_MESSAGE(name))),
    MaxCharacters(100, refusal(FILTER_MESSAGE(name))),
    IsStorableText(refusal(FILTER_MESSAGE(name))),
  );
}

/** @openapi {"type": "string", "maxLength": "$max"} */
function Text(field: string, max = MAX_TEXT): PropertyDecorator {
  return Checks(IsString(refusal(`${field} must be a string`)), MaxLength(max, refusal(`${field} is too long`)));
}

function Required(field: string): PropertyDecorator {
  return IsDefined(refusal(`${field} is required`));
}

/** @openapi {"type": "array", "maxItems": 50, "items": {"type": "string", "maxLength": 2000}} */
function Texts(field: string): PropertyDecorator {
  return Checks(
    IsArray(refusal(`${field} must be a list of strings`)),
    ArrayMaxSize(MAX_LISTED, refusal(`${field} lists at most ${MAX_LISTED}`)),
    IsString({ ...refusal(`each of ${field} is a string`), each: true }),
    MaxLength(MAX_TEXT, { ...refusal(`each of ${field} is at most ${MAX_TEXT} characters`), each: true }),
  );
}

/** @openapi {"type": "boolean"} */
function Flag(field: string): PropertyDecorator {
  return IsBoolean(refusal(`${field} must be true or false`));
}

/** `search`: a case-insensitive substring of the client id or name; `tenant`: the tenant's name. */
export class ListClientsQuery extends NumberedPageQueryDto {
  @IfPresent()
  @Filter('search')
  search?: string;

  @IfPresent()
  @Filter('tenant')
  tenant?: string;
}

/** Anything that cannot be a client id is the same 404 as an unknown client. */
export class ClientIdParams {
  @ValidateBy(
    {
      name: 'isClientId',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isClientIdShaped(value) && isPrintableLine(value),
      },
    },
    withCode('not_found', 'no such client'),
  )
  clientId!: string;
}

/** What `platformctl clients create` takes. */
@RefuseUnknownFields()
export class CreateClientBody {
  @Required('clientId')
  @Text('clientId', 64)
  clientId!: string;

  @Required('name')
  @Text('name')
  name!: string;

  /** `authorization_code`, `client_credentials`, `refresh_token`. */
  @Required('grantTypes')
  @Texts('grantTypes')
  grantTypes!: string[];

  /** Exact https URIs (http only for localhost); at least one for authorization_code. */
  @IfPresent()
  @Texts('redirectUris')
  redirectUris?: string[];

  @IfPresent()
  @Texts('postLogoutRedirectUris')
  postLogoutRedirectUris?: string[];

  @IfPresent()
  @Texts('scopes')
  scopes?: string[];

  /** The tenant's name; the default tenant when omitted; none for `operator`. */
  @IfPresent()
  @Text('tenant', 100)
  tenant?: string;

  /** The platform operator's own integration: no tenant, client_credentials only. */
  @IfPresent()
  @Flag('operator')
  operator?: boolean;

  /** No secret (token_endpoint_auth_method none): authorization_code and refresh_token only, PKCE always. */
  @IfPresent()
  @Flag('public')
  public?: boolean;

  @IfPresent()
  @IsIn(publicationStatuses, refusal('publicationStatus must be Published or Unpublished'))
  publicationStatus?: PublicationStatus;

  @IfPresent()
  @Flag('consentRequired')
  consentRequired?: boolean;

  @IfPresent()
  @Flag('requirePkce')
  requirePkce?: boolean;

  /** Needed for a management scope on an authorization_code client. */
  @IfPresent()
  @Flag('allowManagementScopes')
  allowManagementScopes?: boolean;
}

/** The lists given replace the stored ones; `enabled: false` disables the client and ends its sessions. */
@RefuseUnknownFields()
export class UpdateClientBody {
  @IfPresent()
  @Text('name')
  name?: string;

  @IfPresent()
  @Texts('redirectUris')
  redirectUris?: string[];

  @IfPresent()
  @Texts('postLogoutRedirectUris')
  postLogoutRedirectUris?: string[];

  @IfPresent()
  @Texts('scopes')
  scopes?: string[];

  @IfPresent()
  @Flag('consentRequired')
  consentRequired?: boolean;

  @IfPresent()
  @Flag('enabled')
  enabled?: boolean;

  /** Needed when `scopes` gives an authorization_code client a management scope. */
  @IfPresent()
  @Flag('allowManagementScopes')
  allowManagementScopes?: boolean;
}

export interface ClientTenantResponse {
  tenantId: string;
  name: string;
}

/** A client as the operator sees it; never its secret or the secret's hash. */
export interface ClientResponse {
  clientId: string;
  name: string;
  /** Null: the platform operator's own integration, or a client that registered itself (usable by every tenant). */
  tenant: ClientTenantResponse | null;
  /** The platform operator's own integration (no tenant; its tokens carry no tenant claim). */
  operator: boolean;
  /** `operator` (registered by the operator), `metadata_document` or `dynamic` (registered itself). */
  registration: ClientRegistrationKind;
  /** No secret: token_endpoint_auth_method `none`. */
  public: boolean;
  grantTypes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  publicationStatus: PublicationStatus;
  consentRequired: boolean;
  requirePkce: boolean;
  enabled: boolean;
  /** The platform signs in with it (the web app): not deleted or disabled over HTTP. */
  protected: boolean;
  /** `sub` of its client-credentials tokens. */
  serviceAccountId: string;
  /** Null for a public client. */
  secretRotatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ClientListResponse {
  clients: ClientResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

/** The secret is shown once, here; absent for a public client. */
export interface CreatedClientResponse extends ClientResponse {
  clientSecret?: string;
}

/** The new secret, shown once; the old one no longer works. */
export interface RotatedSecretResponse extends ClientResponse {
  clientSecret: string;
}

export interface DeletedClientResponse {
  clientId: string;
  deleted: true;
}

export function toClientResponse(client: ClientView, protectedClientIds: readonly string[]): ClientResponse {
  const publicClient = isPublicClient(client);
  return {
    clientId: client.clientId,
    name: client.name,
    tenant: client.tenant ? { tenantId: client.tenant.id, name: client.tenant.name } : null,
    operator: client.registration === 'operator' && client.tenantId === null,
    registration: client.registration,
    public: publicClient,
    grantTypes: [...client.grantTypes],
    redirectUris: [...client.redirectUris],
    postLogoutRedirectUris: [...client.postLogoutRedirectUris],
    scopes: [...client.scopes],
    publicationStatus: client.publicationStatus,
    consentRequired: client.consentRequired,
    requirePkce: client.requirePkce,
    enabled: client.enabled,
    protected: protectedClientIds.includes(client.clientId),
    serviceAccountId: client.serviceAccountId,
    secretRotatedAt: publicClient ? null : client.secretRotatedAt.toISOString(),
    createdAt: client.createdAt.toISOString(),
    updatedAt: client.updatedAt.toISOString(),
  };
}

export function toClientListResponse(
  clients: ClientView[],
  protectedClientIds: readonly string[],
  envelope: NumberedPageEnvelope,
): ClientListResponse {
  return { clients: clients.map((client) => toClientResponse(client, protectedClientIds)), ...envelope };
}

export function toRegistration(body: CreateClientBody): ClientRegistration & { tenantName?: string } {
  return {
    clientId: body.clientId,
    name: body.name,
    grantTypes: body.grantTypes,
    redirectUris: body.redirectUris,
    postLogoutRedirectUris: body.postLogoutRedirectUris,
    scopes: body.scopes,
    publicationStatus: body.publicationStatus,
    consentRequired: body.consentRequired,
    requirePkce: body.requirePkce,
    allowManagementScopes: body.allowManagementScopes,
    operator: body.operator,
    publicClient: body.public,
    tenantName: body.tenant,
  };
}

export function toClientChanges(body: UpdateClientBody): ClientChanges {
  return {
    name: body.name,
    redirectUris: body.redirectUris,
    postLogoutRedirectUris: body.postLogoutRedirectUris,
    scopes: body.scopes,
    consentRequired: body.consentRequired,
    enabled: body.enabled,
    allowManagementScopes: body.allowManagementScopes,
  };
}
