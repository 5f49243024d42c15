import { AuditAction, AuditDetails } from '@fed/audit';
import { SaasOnly, Scopes } from '@fed/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { TenantIdParams } from '../tenants/tenants.dto';
import {
  type IdentityProviderDeletedResponse,
  type IdentityProviderResponse,
  type IdentityProviderTestResponse,
  PutIdentityProviderBody,
  toIdentityProviderResponse,
  toIdentityProviderTestResponse,
} from './tenant-idp-admin.dto';
import { TenantIdpCheck } from './tenant-idp-check';
import { TenantIdpsService } from './tenant-idps.service';

/** An enterprise tenant's own OpenID provider, as `platformctl tenants idp` manages it (docs/tenant-identity-providers.md). */
@SaasOnly()
@Controller('api/v1/admin/tenants/:tenantId/identity-provider')
@Scopes('platform:manage')
export class TenantIdpAdminController {
  constructor(
    private readonly idps: TenantIdpsService,
    private readonly checks: TenantIdpCheck,
  ) {}

  @Get()
  async show(@Param() { tenantId }: TenantIdParams): Promise<IdentityProviderResponse> {
    return toIdentityProviderResponse(await this.idps.show({ tenantId }), this.checks.redirectUri);
  }

  @Put()
  @AuditAction('tenants/identity-provider/set', 'update')
  async set(
    @Param() { tenantId }: TenantIdParams,
    @Body() body: PutIdentityProviderBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<IdentityProviderResponse> {
    const view = await this.idps.set({ tenantId }, body);
    // Never the secret: only whether this call replaced it.
    audit.add({
      tenant: view.tenant,
      issuer: view.issuer,
      clientId: view.clientId,
      clientSecretReplaced: body.clientSecret !== undefined,
      scopes: view.scopes,
      domains: view.domains,
    });
    return toIdentityProviderResponse(view, this.checks.redirectUri);
  }

  @Delete()
  @AuditAction('tenants/identity-provider/delete', 'delete')
  async remove(
    @Param() { tenantId }: TenantIdParams,
    @AuditDetails() audit: AuditDetails,
  ): Promise<IdentityProviderDeletedResponse> {
    const removed = await this.idps.remove({ tenantId });
    audit.add({ tenant: removed.tenant, issuer: removed.issuer });
    return { tenantId, deleted: true };
  }

  /** Discovery and JWKS of the provider, fetched as a sign-in would, without a user. */
  @Post('test')
  @HttpCode(200)
  async test(@Param() { tenantId }: TenantIdParams): Promise<IdentityProviderTestResponse> {
    return toIdentityProviderTestResponse(await this.checks.check({ tenantId }));
  }
}
