import { type AccessTokenPrincipal, CurrentPrincipal, SaasOnly } from '@fed/auth';
import { Controller, Get, Header } from '@nestjs/common';
import { type MasterRecordResponse, toMasterRecordResponse } from './master-data.dto';
import { MasterDataService, masterDataTenantOf } from './master-data.service';

// Changes are rare and made by admins: a client may keep a list for a minute (its own cache only).
const LIST_CACHE = 'private, max-age=60';

/** Document 2, "Master data": the lists as a user's tenant admin sees them; any valid token, no scope. */
@SaasOnly()
@Controller('api/v1')
export class MasterDataListsController {
  constructor(private readonly masterData: MasterDataService) {}

  @Get('organizations')
  @Header('Cache-Control', LIST_CACHE)
  async organizations(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
  ): Promise<{ organizations: MasterRecordResponse[] }> {
    const records = await this.masterData.list('organization', masterDataTenantOf(principal));
    return { organizations: records.map(toMasterRecordResponse) };
  }

  @Get('job-types')
  @Header('Cache-Control', LIST_CACHE)
  async jobTypes(@CurrentPrincipal() principal: AccessTokenPrincipal): Promise<{ jobTypes: MasterRecordResponse[] }> {
    const records = await this.masterData.list('jobType', masterDataTenantOf(principal));
    return { jobTypes: records.map(toMasterRecordResponse) };
  }
}
