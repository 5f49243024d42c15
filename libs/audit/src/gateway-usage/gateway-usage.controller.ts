import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { Controller, Get, Query } from '@nestjs/common';
import { GatewayUsageQuery, type GatewayUsageResponse, toGatewayUsageResponse } from './gateway-usage.dto';
import { GatewayUsageService } from './gateway-usage.service';

@SaasOnly()
@Controller('api/v1/admin/gateway-usage')
@Scopes('logs:read', 'platform:manage')
export class GatewayUsageController {
  constructor(private readonly usage: GatewayUsageService) {}

  /** Requests, errors, tokens and cost per UTC day and model, key or user, from the day rollup of the gateway log. */
  @Get()
  async read(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: GatewayUsageQuery,
  ): Promise<GatewayUsageResponse> {
    return toGatewayUsageResponse(await this.usage.read(principal, query));
  }
}
