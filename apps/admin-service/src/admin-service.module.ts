import { AuditLogsModule, GatewayLogsModule, LlmLogsModule, LogRetentionModule } from '@fed/audit';
import { AdminUsersModule, MasterDataModule } from '@fed/identity';
import { Module } from '@nestjs/common';

// Admin APIs of document 3: users, logs, shared memory, master data.
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({
  imports: [
    // logs (libs/audit): the audit log (and the trail behind @AuditAction), the gateway log, their retention.
    AuditLogsModule,
    GatewayLogsModule,
    // the LLM log (written by agent-runtime): /v1/admin/llm-logs.
    LlmLogsModule,
    LogRetentionModule,
    // users and master data (libs/identity): /v1/admin/users, /v1/admin/organizations, /v1/admin/job-types.
    AdminUsersModule,
    MasterDataModule,
  ],
})
export class AdminServiceModule {}
