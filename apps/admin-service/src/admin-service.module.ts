import {
  CatalogAdminModule,
  LibraryAdminModule,
  MarketplaceAgentsAdminModule,
  ToolServersAdminModule,
} from '@fed/agent';
import {
  AccessLogsModule,
  AuditLogsModule,
  GatewayLogsModule,
  GatewayUsageModule,
  GuardrailAlertsModule,
  LlmLogsModule,
  LogRetentionModule,
} from '@fed/audit';
import { ApiKeysAdminModule } from '@fed/gateway';
import {
  AdminUsersModule,
  ClientsAdminModule,
  MasterDataModule,
  SigningKeysAdminModule,
  TenantIdpAdminModule,
  TenantsAdminModule,
} from '@fed/identity';
import { MemoryQueryModule } from '@fed/memory';
import { Module } from '@nestjs/common';

// Admin APIs of document 3; the host (config, logging, health, database, bus, auth) is shared.
@Module({
  imports: [
    // logs (libs/audit): the audit log (and the trail behind @AuditAction), the gateway log, their retention.
    AuditLogsModule,
    GatewayLogsModule,
    // gateway usage per day, from the day rollup of the gateway log: /v1/admin/gateway-usage.
    GatewayUsageModule,
    // the gateway's virtual keys (libs/gateway, platform:manage): /v1/admin/api-keys.
    ApiKeysAdminModule,
    // the LLM log (written by agent-runtime): /v1/admin/llm-logs.
    LlmLogsModule,
    // the access log (written by every service's host): /v1/admin/access-logs.
    AccessLogsModule,
    LogRetentionModule,
    GuardrailAlertsModule,
    // users and master data (libs/identity): /v1/admin/users, /v1/admin/organizations, /v1/admin/job-types.
    AdminUsersModule,
    MasterDataModule,
    // the platform operator's (platform:manage): /v1/admin/signing-keys, /v1/admin/tenants and their providers.
    SigningKeysAdminModule,
    TenantsAdminModule,
    TenantIdpAdminModule,
    // the platform operator's clients (libs/identity, platform:manage): /v1/admin/clients.
    ClientsAdminModule,
    // shared memory (libs/memory): /v1/admin/memory/query with its monthly quota.
    MemoryQueryModule,
    // the agent's platform-wide registries (libs/agent, platform:manage): /v1/admin/tool-servers,
    // /v1/admin/{personas,playbooks,skills}, /v1/admin/library (its files in the blob store).
    ToolServersAdminModule,
    CatalogAdminModule,
    LibraryAdminModule,
    // the Marketplace edition's admin panel (platform:manage; 404 in SaaS): /v1/admin/marketplace-agents.
    MarketplaceAgentsAdminModule,
  ],
})
export class AdminServiceModule {}
