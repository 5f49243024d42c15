import { isUuid } from '@fed/contracts';
import {
  Checks,
  IsNotBlank,
  IsStorableText,
  MaxCharacters,
  NumberedPageQueryDto,
  RefuseUnknownFields,
  withCode,
} from '@fed/server';
import { Transform } from 'class-transformer';
import { IsBoolean, IsDefined, IsOptional, IsString, ValidateBy } from 'class-validator';
import { type TenantType } from './tenant.entity';
import { type TenantRow } from './tenant.repository';
import {
  ENDPOINT_MESSAGE,
  TENANT_NAME_MESSAGE,
  TENANT_TYPE_MESSAGE,
  isTenantEndpoint,
  isTenantName,
  isTenantType,
} from './tenant.rules';

export interface TenantResponse {
  tenantId: string;
  name: string;
  type: TenantType;
  /** `tenant.endpoint` of its tokens. */
  endpoint: string;
  /** false: its users and clients get no tokens. */
  enabled: boolean;
  createdAt: string;
  userCount: number;
  clientCount: number;
  /** Its staff sign in with its own OpenID provider (`.../identity-provider`). */
  hasIdentityProvider: boolean;
}

export interface TenantListResponse {
  tenants: TenantResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface TenantDeletedResponse {
  tenantId: string;
  deleted: true;
}

export function toTenantResponse(tenant: TenantRow): TenantResponse {
  return {
    tenantId: tenant.id,
    name: tenant.name,
    type: tenant.type,
    endpoint: tenant.endpoint,
    enabled: tenant.enabled,
    createdAt: tenant.createdAt.toISOString(),
    userCount: tenant.users,
    clientCount: tenant.clients,
    hasIdentityProvider: tenant.identityProvider,
  };
}

const badParameter = (message: string) => withCode('invalid_parameter', message);

export const MAX_TENANT_SEARCH_CHARACTERS = 100;
const SEARCH_MESSAGE = `search must be 1-${MAX_TENANT_SEARCH_CHARACTERS} characters of text`;

export class ListTenantsQuery extends NumberedPageQueryDto {
  /** A substring of the name or the endpoint, any letter case. */
  @IsOptional()
  @Checks(
    IsString(badParameter(SEARCH_MESSAGE)),
    IsNotBlank(badParameter(SEARCH_MESSAGE)),
    MaxCharacters(MAX_TENANT_SEARCH_CHARACTERS, badParameter(SEARCH_MESSAGE)),
    IsStorableText(badParameter(SEARCH_MESSAGE)),
  )
  search?: string;
}

/** Any letter case, kept lowercase; anything but a UUID is the same 404 as an unknown tenant. */
export class TenantIdParams {
  @Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value))
  @ValidateBy({ name: 'isTenantId', validator: { validate: isUuid } }, withCode('not_found', 'no such tenant'))
  tenantId!: string;
}

function TenantEndpoint(): PropertyDecorator {
  return ValidateBy(
    { name: 'isTenantEndpoint', validator: { validate: isTenantEndpoint } },
    badParameter(ENDPOINT_MESSAGE),
  );
}

@RefuseUnknownFields()
export class CreateTenantBody {
  /** 1-100 printable characters; unique; fixed once created. */
  @Checks(
    IsDefined(badParameter('name is required')),
    ValidateBy({ name: 'isTenantName', validator: { validate: isTenantName } }, badParameter(TENANT_NAME_MESSAGE)),
  )
  name!: string;

  @Checks(
    IsDefined(badParameter('type is required')),
    ValidateBy({ name: 'isTenantType', validator: { validate: isTenantType } }, badParameter(TENANT_TYPE_MESSAGE)),
  )
  type!: TenantType;

  @Checks(IsDefined(badParameter('endpoint is required')), TenantEndpoint())
  endpoint!: string;

  /** Default true. */
  @IsOptional()
  @IsBoolean(badParameter('enabled must be true or false'))
  enabled?: boolean;
}

/** `name` and `type` are refused as unknown fields: a tenant is never renamed nor changes type. */
@RefuseUnknownFields()
export class UpdateTenantBody {
  @IsOptional()
  @TenantEndpoint()
  endpoint?: string;

  @IsOptional()
  @IsBoolean(badParameter('enabled must be true or false'))
  enabled?: boolean;
}
