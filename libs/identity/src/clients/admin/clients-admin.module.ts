import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients.module';
import { ClientsAdminController } from './clients-admin.controller';

/** `/api/v1/admin/clients` (`platform:manage`; admin-service). */
@Module({
  imports: [ClientsModule],
  controllers: [ClientsAdminController],
})
export class ClientsAdminModule {}
