import { AuditAction, AuditDetails } from '@fed/audit';
import { SaasOnly, Scopes } from '@fed/auth';
import { numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  CreateTenantBody,
  ListTenantsQuery,
  type TenantDeletedResponse,
  TenantIdParams,
  type TenantListResponse,
  type TenantResponse,
  UpdateTenantBody,
  toTenantResponse,
} from './tenants.dto';
import { TenantsService } from './tenants.service';

/** The realm's tenants, for the platform operator (docs/identity.md, "Tenants over HTTP"). */
@SaasOnly()
@Controller('api/v1/admin/tenants')
@Scopes('platform:manage')
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Get()
  async list(@Query() query: ListTenantsQuery): Promise<TenantListResponse> {
    const page = toNumberedPageParams(query);
    const { tenants, total } = await this.tenants.list(query.search, page);
    return { tenants: tenants.map(toTenantResponse), ...numberedPageEnvelope(page, total) };
  }

  @Get(':tenantId')
  async get(@Param() { tenantId }: TenantIdParams): Promise<TenantResponse> {
    return toTenantResponse(await this.tenants.get({ tenantId }));
  }

  @Post()
  @AuditAction('tenants/create', 'create')
  async create(@Body() body: CreateTenantBody, @AuditDetails() audit: AuditDetails): Promise<TenantResponse> {
    const tenant = await this.tenants.create(body);
    audit.add({ tenantId: tenant.id, name: tenant.name, type: tenant.type, enabled: tenant.enabled });
    return toTenantResponse(tenant);
  }

  @Patch(':tenantId')
  @AuditAction('tenants/update', 'update')
  async update(
    @Param() { tenantId }: TenantIdParams,
    @Body() body: UpdateTenantBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<TenantResponse> {
    const tenant = await this.tenants.update({ tenantId }, body);
    audit.add({ name: tenant.name, ...body });
    if (body.enabled !== undefined) audit.name({ action: body.enabled ? 'enable' : 'disable' });
    return toTenantResponse(tenant);
  }

  @Delete(':tenantId')
  @AuditAction('tenants/delete', 'delete')
  async delete(
    @Param() { tenantId }: TenantIdParams,
    @AuditDetails() audit: AuditDetails,
  ): Promise<TenantDeletedResponse> {
    const tenant = await this.tenants.delete({ tenantId });
    audit.add({ name: tenant.name });
    return { tenantId, deleted: true };
  }
}
