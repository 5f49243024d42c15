import { AuditAction, AuditDetails } from '@fed/audit';
import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { Body, Controller, Delete, Get, Inject, Param, Patch, Post } from '@nestjs/common';
import {
  CreateMasterRecordBody,
  MasterCodeParams,
  type MasterRecordResponse,
  UpdateMasterRecordBody,
  toMasterRecordResponse,
} from './master-data.dto';
import { type MasterDataKind } from './master-data.entity';
import { MasterDataService, masterDataTenantOf } from './master-data.service';

abstract class MasterDataController {
  protected abstract readonly kind: MasterDataKind;
  protected abstract readonly listField: 'organizations' | 'jobTypes';
  /** The audit log's resource prefix (`config/organizations`). */
  protected abstract readonly auditResource: string;

  constructor(@Inject(MasterDataService) private readonly masterData: MasterDataService) {}

  @Get()
  async list(@CurrentPrincipal() principal: AccessTokenPrincipal): Promise<Record<string, MasterRecordResponse[]>> {
    const records = await this.masterData.list(this.kind, masterDataTenantOf(principal));
    return { [this.listField]: records.map(toMasterRecordResponse) };
  }

  @Post()
  @AuditAction('config/master-data/create', 'create')
  async create(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Body() body: CreateMasterRecordBody,
    @AuditDetails() audit: AuditDetails,
  ): Promise<MasterRecordResponse> {
    audit.name({ resource: `${this.auditResource}/create` });
    audit.add({ code: body.code, label: body.label });
    return toMasterRecordResponse(await this.masterData.create(this.kind, masterDataTenantOf(principal), body));
  }

  @Patch(':code')
  @AuditAction('config/master-data/update', 'update')
  async update(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { code }: MasterCodeParams,
    @Body() body: UpdateMasterRecordBody,
    @AuditDetails() audit: AuditDetails,
  ) {
    audit.name({ resource: `${this.auditResource}/update` });
    audit.add({ label: body.label });
    return toMasterRecordResponse(await this.masterData.update(this.kind, masterDataTenantOf(principal), code, body));
  }

  @Delete(':code')
  @AuditAction('config/master-data/delete', 'delete')
  async delete(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { code }: MasterCodeParams,
    @AuditDetails() audit: AuditDetails,
  ): Promise<{ code: string; deleted: true }> {
    audit.name({ resource: `${this.auditResource}/delete` });
    await this.masterData.delete(this.kind, masterDataTenantOf(principal), code);
    return { code, deleted: true };
  }
}

@SaasOnly()
@Controller('api/v1/admin/organizations')
@Scopes('master:manage')
export class OrganizationsController extends MasterDataController {
  protected readonly kind = 'organization';
  protected readonly listField = 'organizations';
  protected readonly auditResource = 'config/organizations';
}

@SaasOnly()
@Controller('api/v1/admin/job-types')
@Scopes('master:manage')
export class JobTypesController extends MasterDataController {
  protected readonly kind = 'jobType';
  protected readonly listField = 'jobTypes';
  protected readonly auditResource = 'config/job-types';
}
