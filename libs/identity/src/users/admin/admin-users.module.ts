import { Module } from '@nestjs/common';
import { NotificationsModule } from '../../notifications/notifications.module';
import { UsersModule } from '../users.module';
import { AdminUsersController } from './admin-users.controller';
import { AdminUsersRepository } from './admin-users.repository';
import { AdminUsersService } from './admin-users.service';

@Module({
  imports: [UsersModule, NotificationsModule],
  controllers: [AdminUsersController],
  providers: [AdminUsersRepository, AdminUsersService],
})
export class AdminUsersModule {}
