import { AuditAction, AuditDetails } from '@fed/audit';
import { Scopes, SaasOnly } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  type ApiKeyListResponse,
  type ApiKeyResponse,
  ApiKeyIdParams,
  CreateApiKeyBody,
  type IssuedApiKeyResponse,
  ListApiKeysQuery,
  UpdateApiKeyBody,
  toApiKeyResponse,
  toIssuedApiKeyResponse,
} from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';

const instant = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null ? null : new Date(value);

/** The gateway's virtual keys, as `platformctl apikeys` manages them (the platform operator's). */
@SaasOnly()
@Controller('api/v1/admin/api-keys')
@Scopes('platform:manage')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** Newest first; never a key, only its hint. */
  @Get()
  async list(@Query() query: ListApiKeysQuery): Promise<ApiKeyListResponse> {
    const page = toNumberedPageParams(query);
    const { keys, total } = await this.keys.listPage(
      { state: query.state, tenantId: query.tenantId, search: query.search },
      page,
    );
    return {
      apiKeys: keys.map((key) => toApiKeyResponse(key, this.keys.stateOf(key))),
      ...numberedPageEnvelope(page, total),
    };
  }

  @Get(':keyId')
  async get(@Param() { keyId }: ApiKeyIdParams): Promise<ApiKeyResponse> {
    const key = await this.keys.get(keyId);
    return toApiKeyResponse(key, this.keys.stateOf(key));
  }

  /** The key is in this answer only. */
  @Post()
  @AuditAction('gateway/api-keys/create', 'create')
  async create(@Body() body: CreateApiKeyBody, @AuditDetails() audit: AuditDetails): Promise<IssuedApiKeyResponse> {
    const issued = await this.keys.create({
      name: body.name,
      allowedModels: body.models ?? undefined,
      rpmLimit: body.rpm ?? undefined,
      tpmLimit: body.tpm ?? undefined,
      dailyBudgetUsd: body.dailyBudgetUsd ?? undefined,
      allowedNetworks: body.networks ?? undefined,
      expiresAt: instant(body.expiresAt) ?? undefined,
      expiresInDays: body.expiresInDays ?? undefined,
      tenantId: body.tenantId ?? undefined,
    });
    audit.add({ keyId: issued.key.id, name: issued.key.name, tenantId: issued.key.tenantId });
    return toIssuedApiKeyResponse(issued, this.keys.stateOf(issued.key));
  }

  /** Limits, models, networks, name, expiry; a revoked key is 409. */
  @Patch(':keyId')
  @AuditAction('gateway/api-keys/update', 'update')
  async update(
    @Param() { keyId }: ApiKeyIdParams,
    @Body() body: UpdateApiKeyBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<ApiKeyResponse> {
    const key = await this.keys.update(keyId, {
      name: body.name,
      allowedModels: body.models,
      rpmLimit: body.rpm,
      tpmLimit: body.tpm,
      dailyBudgetUsd: body.dailyBudgetUsd,
      allowedNetworks: body.networks,
      expiresAt: instant(body.expiresAt),
      expiresInDays: body.expiresInDays,
    });
    audit.add({ changed: Object.keys(body).sort() });
    return toApiKeyResponse(key, this.keys.stateOf(key));
  }

  /** Refused at once by every running gateway; final. */
  @Post(':keyId/revoke')
  @HttpCode(200)
  @AuditAction('gateway/api-keys/revoke', 'revoke')
  async revoke(@Param() { keyId }: ApiKeyIdParams): Promise<ApiKeyResponse> {
    const key = await this.keys.revoke(keyId);
    return toApiKeyResponse(key, this.keys.stateOf(key));
  }
}
