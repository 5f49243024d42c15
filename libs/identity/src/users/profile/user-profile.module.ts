import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantEntity } from '../../tenants/tenant.entity';
import { UserEntity } from '../user.entity';
import { UserRepository } from '../user.repository';
import { UserProfileController } from './user-profile.controller';
import { UserProfileRepository } from './user-profile.repository';
import { UserProfileService } from './user-profile.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, TenantEntity])],
  controllers: [UserProfileController],
  providers: [UserRepository, UserProfileRepository, UserProfileService],
})
export class UserProfileModule {}
