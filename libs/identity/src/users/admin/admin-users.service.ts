import { type NumberedPageEnvelope, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { type AccessTokenPrincipal } from '@fed/auth';
import { Injectable } from '@nestjs/common';
import { UserNotifications } from '../../notifications/user-notifications';
import { type UserRole } from '../user.entity';
import { type UserScope } from '../user.repository';
import { UsersError } from '../users.errors';
import { UsersService } from '../users.service';
import { type AdminUserResponse, type ListUsersQuery } from './admin-users.dto';
import { toAdminUserResponse } from './admin-users.mapper';
import { AdminUsersRepository } from './admin-users.repository';

/** Its tenant's users; a token without a tenant (none issued today) acts across tenants, as platformctl does. */
export function adminScopeOf(principal: AccessTokenPrincipal): UserScope {
  return principal.tenant ? { tenantId: principal.tenant.id } : {};
}

@Injectable()
export class AdminUsersService {
  constructor(
    private readonly users: UsersService,
    private readonly repository: AdminUsersRepository,
    private readonly notifications: UserNotifications,
  ) {}

  async list(
    principal: AccessTokenPrincipal,
    query: ListUsersQuery,
  ): Promise<{ users: AdminUserResponse[] } & NumberedPageEnvelope> {
    const page = toNumberedPageParams(query);
    const { users, total } = await this.repository.page(
      adminScopeOf(principal),
      {
        role: query.role,
        approved: query.is_approved === undefined ? undefined : query.is_approved === 'true',
        search: query.search,
        organization: query.organization,
        jobType: query.job_type,
      },
      page,
    );
    return { users: users.map(toAdminUserResponse), ...numberedPageEnvelope(page, total) };
  }

  async delete(principal: AccessTokenPrincipal, userId: string): Promise<{ userId: string; deleted: true }> {
    if (userId === principal.subject) {
      throw new UsersError('cannot_delete_self', 'an admin cannot delete their own account');
    }
    await this.users.delete(userId, adminScopeOf(principal));
    return { userId, deleted: true };
  }

  async setRole(
    principal: AccessTokenPrincipal,
    userId: string,
    role: UserRole,
  ): Promise<{ userId: string; changed: true }> {
    await this.users.setRole(userId, role, adminScopeOf(principal));
    return { userId, changed: true };
  }

  async approve(principal: AccessTokenPrincipal, userId: string): Promise<{ userId: string; approved: true }> {
    await this.users.approve(userId, adminScopeOf(principal));
    // Queued: the answer never waits for SMTP, and a queue failure is logged, not raised.
    await this.notifications.userApproved(userId);
    return { userId, approved: true };
  }

  async reject(principal: AccessTokenPrincipal, userId: string): Promise<{ userId: string; status: 'pending' }> {
    await this.users.reject(userId, adminScopeOf(principal));
    await this.notifications.userRejected(userId);
    return { userId, status: 'pending' };
  }
}
