import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { type Response } from 'express';
import { quotaHeaders } from '../memory-quota';
import { MemoryQueryBody, type MemoryQueryResponse, toMemoryItemResponse } from './memory-query.dto';
import { MemoryQueryService } from './memory-query.service';

@Scopes('sharedmemory:query')
@SaasOnly()
@Controller('api/v1/admin/memory')
export class MemoryQueryController {
  constructor(private readonly memory: MemoryQueryService) {}

  @Post('query')
  @HttpCode(200)
  async query(
    @Body() body: MemoryQueryBody,
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<MemoryQueryResponse> {
    const { hits, quota } = await this.memory.query({
      tenantId: principal.tenant?.id ?? null,
      query: body.query,
      orgId: body.orgId,
      jobRole: body.jobRole,
    });
    res.set(quotaHeaders(quota));
    return { memories: hits.map(toMemoryItemResponse) };
  }
}
