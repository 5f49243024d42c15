import { SaasOnly } from '@fed/auth';
import { Controller, Get, Header } from '@nestjs/common';
import { type MasterRecordResponse, toMasterRecordResponse } from './master-data.dto';
import { MasterDataService } from './master-data.service';

// Changes are rare and made by admins: a client may keep a list for a minute (its own cache only).
const LIST_CACHE = 'private, max-age=60';

/**
 * `{base_url}/api/v1/organizations` and `/api/v1/job-types` (document 2, "Master data"; SaaS only): the
 * admin lists as users read them, to render a profile. Any valid token, no scope. The records are
 * platform-wide, so every tenant's users see what the admin API lists, in its order and shape.
 */
@SaasOnly()
@Controller('api/v1')
export class MasterDataListsController {
  constructor(private readonly masterData: MasterDataService) {}

  @Get('organizations')
  @Header('Cache-Control', LIST_CACHE)
  async organizations(): Promise<{ organizations: MasterRecordResponse[] }> {
    return { organizations: (await this.masterData.list('organization')).map(toMasterRecordResponse) };
  }

  @Get('job-types')
  @Header('Cache-Control', LIST_CACHE)
  async jobTypes(): Promise<{ jobTypes: MasterRecordResponse[] }> {
    return { jobTypes: (await this.masterData.list('jobType')).map(toMasterRecordResponse) };
  }
}
