import { Module } from '@nestjs/common';

// Admin APIs of document 3: users, logs, shared memory, master data.
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({})
export class AdminServiceModule {}
