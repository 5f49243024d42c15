import { type NumberedPageEnvelope, isUuid } from '@fed/contracts';
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
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  ValidateBy,
} from 'class-validator';
import { type ApiKeyState } from './api-key.repository';
import { type ApiKeyView, type IssuedApiKey, MAX_EXPIRY_DAYS } from './api-keys.service';

// The request's shapes; the keys' own rules (name, model and network syntax, limit ranges, expiry) are the
// service's, shared with `platformctl apikeys`, and refused with the same code whichever checks first.

const refusal = (message: string) => withCode('invalid_parameter', message);
const MAX_LISTED = 100;
const SEARCH_MESSAGE = 'search must be 1-100 characters of text';
const apiKeyStates: readonly ApiKeyState[] = ['live', 'revoked', 'expired'];

/** @openapi {"type": "string", "format": "uuid"} */
function TenantId(): PropertyDecorator {
  return ValidateBy(
    { name: 'isTenantId', validator: { validate: isUuid } },
    refusal('tenantId must be a tenant id (a UUID)'),
  );
}

function KeyName(): PropertyDecorator {
  const message = 'name must be 1-100 characters of text';
  return Checks(
    IsString(refusal(message)),
    IsNotBlank(refusal(message)),
    MaxCharacters(100, refusal(message)),
    IsStorableText(refusal(message)),
  );
}

function Names(field: string, what: string, maxLength: number): PropertyDecorator {
  return Checks(
    IsArray(refusal(`${field} must be a list of ${what}`)),
    ArrayMaxSize(MAX_LISTED, refusal(`${field} lists at most ${MAX_LISTED} ${what}`)),
    IsString({ ...refusal(`each of ${field} is a string`), each: true }),
    MaxLength(maxLength, { ...refusal(`each of ${field} is at most ${maxLength} characters`), each: true }),
  );
}

function Limit(field: string): PropertyDecorator {
  return IsInt(refusal(`${field} must be an integer`));
}

function Dollars(): PropertyDecorator {
  return IsNumber({ allowNaN: false, allowInfinity: false }, refusal('dailyBudgetUsd must be a number of dollars'));
}

function Instant(): PropertyDecorator {
  return Checks(
    IsString(refusal('expiresAt must be an ISO 8601 date and time')),
    IsISO8601({ strict: true }, refusal('expiresAt must be an ISO 8601 date and time')),
  );
}

function Days(): PropertyDecorator {
  return IsInt(refusal(`expiresInDays must be an integer from 1 to ${MAX_EXPIRY_DAYS}`));
}

export class ListApiKeysQuery extends NumberedPageQueryDto {
  /** `live` (neither revoked nor expired), `revoked` or `expired`. */
  @IsOptional()
  @IsIn(apiKeyStates, refusal('state must be live, revoked or expired'))
  state?: ApiKeyState;

  /** Keys issued to this tenant. */
  @IsOptional()
  @TenantId()
  tenantId?: string;

  /** Part of the key's name, any letter case. */
  @IsOptional()
  @Checks(
    IsString(refusal(SEARCH_MESSAGE)),
    IsNotBlank(refusal(SEARCH_MESSAGE)),
    MaxCharacters(100, refusal(SEARCH_MESSAGE)),
    IsStorableText(refusal(SEARCH_MESSAGE)),
  )
  search?: string;
}

/**
 * Any letter case; anything but a UUID is the same 404 as an unknown key.
 * @openapi {"type": "string", "format": "uuid"}
 */
function KeyId(): PropertyDecorator {
  return Checks(
    Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value)),
    ValidateBy({ name: 'isKeyId', validator: { validate: isUuid } }, withCode('not_found', 'no such key')),
  );
}

export class ApiKeyIdParams {
  @KeyId()
  keyId!: string;
}

/** What `platformctl apikeys create` takes. */
@RefuseUnknownFields()
export class CreateApiKeyBody {
  /** Who or what uses the key. */
  @Checks(IsDefined(refusal('name is required')), KeyName())
  name!: string;

  /** Names or aliases of the routing table the key may call; absent or empty: every model. */
  @IsOptional()
  @Names('models', 'model names', 200)
  models?: string[];

  /** Requests per minute; absent: no limit. */
  @IsOptional()
  @Limit('rpm')
  rpm?: number;

  /** Tokens (input and output) per minute; absent: no limit. */
  @IsOptional()
  @Limit('tpm')
  tpm?: number;

  /** A hard quota in US dollars per UTC day, at most 4 decimals; absent: none. */
  @IsOptional()
  @Dollars()
  dailyBudgetUsd?: number;

  /** Networks (CIDR or addresses) the key may be used from; absent: any the gateway allows. */
  @IsOptional()
  @Names('networks', 'networks', 50)
  networks?: string[];

  /** When the key stops working (ISO 8601, in the future); not with expiresInDays. */
  @IsOptional()
  @Instant()
  expiresAt?: string;

  /** The key stops working this many days from now; not with expiresAt. */
  @IsOptional()
  @Days()
  expiresInDays?: number;

  /** The tenant the key is issued to: its calls go to that tenant's logs and usage; absent: the operator's key. */
  @IsOptional()
  @TenantId()
  tenantId?: string;
}

/** Every field optional, null clears it; an unknown one (such as `tenantId`, which never changes) is refused. */
@RefuseUnknownFields()
export class UpdateApiKeyBody {
  @IsOptional()
  @KeyName()
  name?: string;

  /** Null or empty: every model. */
  @IsOptional()
  @Names('models', 'model names', 200)
  models?: string[] | null;

  /** Null: no limit. */
  @IsOptional()
  @Limit('rpm')
  rpm?: number | null;

  /** Null: no limit. */
  @IsOptional()
  @Limit('tpm')
  tpm?: number | null;

  /** Null: no quota. */
  @IsOptional()
  @Dollars()
  dailyBudgetUsd?: number | null;

  /** Null: any network the gateway allows. */
  @IsOptional()
  @Names('networks', 'networks', 50)
  networks?: string[] | null;

  /** Null: never expires. An expired key is made live again by a later expiry. */
  @IsOptional()
  @Instant()
  expiresAt?: string | null;

  @IsOptional()
  @Days()
  expiresInDays?: number;
}

/** A virtual key of the gateway, never the key itself: its hint. */
export interface ApiKeyResponse {
  keyId: string;
  name: string;
  /** The prefix and the last four characters (`fed_...abcd`). */
  keyHint: string;
  state: ApiKeyState;
  /** Null: every model. */
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  dailyBudgetUsd: number | null;
  /** Null: any network the gateway allows. */
  networks: string[] | null;
  /** Null: the operator's key. */
  tenantId: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** The create response: the key itself, shown this once (only its hash is stored). */
export interface IssuedApiKeyResponse extends ApiKeyResponse {
  apiKey: string;
}

export interface ApiKeyListResponse extends NumberedPageEnvelope {
  apiKeys: ApiKeyResponse[];
}

export function toApiKeyResponse(key: ApiKeyView, state: ApiKeyState): ApiKeyResponse {
  return {
    keyId: key.id,
    name: key.name,
    keyHint: key.keyHint,
    state,
    models: key.allowedModels,
    rpm: key.rpmLimit,
    tpm: key.tpmLimit,
    dailyBudgetUsd: key.dailyBudgetUsd === null ? null : Number(key.dailyBudgetUsd),
    networks: key.allowedNetworks,
    tenantId: key.tenantId,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

export function toIssuedApiKeyResponse(issued: IssuedApiKey, state: ApiKeyState): IssuedApiKeyResponse {
  return { ...toApiKeyResponse(issued.key, state), apiKey: issued.apiKey };
}
