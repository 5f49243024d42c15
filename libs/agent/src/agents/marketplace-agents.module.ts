import { MARKETPLACE_AGENTS, type MarketplaceAgentLookup } from '@fed/conversations';
import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MarketplaceAgentsAdminController } from './marketplace-agents-admin.controller';
import { MarketplaceAgentsAdminService } from './marketplace-agents-admin.service';
import { marketplaceAgentEntities } from './marketplace-agent.entity';
import { MarketplaceAgentsRepository } from './marketplace-agents.repository';

/** Marketplace agents for request owners (read per request) and turns; global: conversations modules resolve owners. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(marketplaceAgentEntities)],
  providers: [
    MarketplaceAgentsRepository,
    {
      provide: MARKETPLACE_AGENTS,
      inject: [MarketplaceAgentsRepository],
      useFactory: (agents: MarketplaceAgentsRepository): MarketplaceAgentLookup => ({
        async find(agentId) {
          const agent = await agents.find(agentId);
          return agent && { id: agent.id, enabled: agent.enabled, tenantId: agent.tenantId };
        },
        unavailableTo: (tenantId) => agents.unavailableTo(tenantId),
      }),
    },
  ],
  exports: [MarketplaceAgentsRepository, MARKETPLACE_AGENTS],
})
export class MarketplaceAgentsModule {}

/** The Marketplace admin panel's `/api/v1/admin/marketplace-agents` (admin-service; 404 in the SaaS edition). */
@Module({
  imports: [TypeOrmModule.forFeature(marketplaceAgentEntities)],
  controllers: [MarketplaceAgentsAdminController],
  providers: [
    { provide: MarketplaceAgentsAdminService, inject: [DataSource], useFactory: marketplaceAgentsAdminServiceFor },
  ],
})
export class MarketplaceAgentsAdminModule {}

/** The administrator's service on a data source, as platformctl and the tests build it. */
export function marketplaceAgentsAdminServiceFor(dataSource: DataSource): MarketplaceAgentsAdminService {
  return new MarketplaceAgentsAdminService(new MarketplaceAgentsRepository(dataSource));
}
