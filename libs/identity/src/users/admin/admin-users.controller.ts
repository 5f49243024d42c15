import { AuditAction, AuditDetails } from '@fed/audit';
import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ChangeRoleBody, ListUsersQuery, UserIdParams } from './admin-users.dto';
import { AdminUsersService } from './admin-users.service';

/** Document 3, "Admin API"; the app's pipe validates requests. */
@SaasOnly()
@Controller('api/v1/admin/users')
@Scopes('users:manage')
export class AdminUsersController {
  constructor(private readonly users: AdminUsersService) {}

  @Get()
  @Scopes('users:read', 'users:manage')
  list(@CurrentPrincipal() principal: AccessTokenPrincipal, @Query() query: ListUsersQuery) {
    return this.users.list(principal, query);
  }

  @Delete(':userId')
  @AuditAction('users/delete', 'delete')
  delete(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param() { userId }: UserIdParams) {
    return this.users.delete(principal, userId);
  }

  @Put(':userId/role')
  @AuditAction('users/role', 'change_role')
  setRole(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Param() { userId }: UserIdParams,
    @Body() { role }: ChangeRoleBody,
    @AuditDetails() audit: AuditDetails,
  ) {
    audit.name({ action: role === 'admin' ? 'promote' : 'demote' });
    audit.add({ role });
    return this.users.setRole(principal, userId, role);
  }

  @Post(':userId/approve')
  @HttpCode(200)
  @AuditAction('users/approve', 'approve')
  approve(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param() { userId }: UserIdParams) {
    return this.users.approve(principal, userId);
  }

  @Post(':userId/reject')
  @HttpCode(200)
  @AuditAction('users/reject', 'reject')
  reject(@CurrentPrincipal() principal: AccessTokenPrincipal, @Param() { userId }: UserIdParams) {
    return this.users.reject(principal, userId);
  }
}
