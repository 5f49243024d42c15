import { type NumberedPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type UserScope } from '../user.repository';
import { type UserRole, UserEntity } from '../user.entity';

export interface UserFilters {
  role?: UserRole;
  /** true: approved; false: any other status (unverified or pending). */
  approved?: boolean;
  /** Case-insensitive substring of the e-mail address or username. */
  search?: string;
  organization?: string;
  jobType?: string;
}

// LIKE's wildcards and its escape character, matched literally.
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

@Injectable()
export class AdminUsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async page(
    scope: UserScope,
    filters: UserFilters,
    page: NumberedPageParams,
  ): Promise<{ users: UserEntity[]; total: number }> {
    const query = this.dataSource.manager.createQueryBuilder(UserEntity, 'user');
    if (scope.tenantId) query.andWhere('user.tenantId = :tenantId', { tenantId: scope.tenantId });
    if (filters.role) query.andWhere('user.role = :role', { role: filters.role });
    if (filters.approved !== undefined) {
      query.andWhere(filters.approved ? "user.status = 'approved'" : "user.status <> 'approved'");
    }
    if (filters.search !== undefined) {
      query.andWhere("(user.email ILIKE :pattern ESCAPE '\\' OR user.username ILIKE :pattern ESCAPE '\\')", {
        pattern: `%${likeLiteral(filters.search)}%`,
      });
    }
    if (filters.organization !== undefined) {
      query.andWhere(`"user"."organization"->>'id' = :organization`, { organization: filters.organization });
    }
    if (filters.jobType !== undefined) query.andWhere(`"user"."job"->>'id' = :jobType`, { jobType: filters.jobType });
    const [users, total] = await query
      .orderBy('user.createdAt', 'DESC')
      .addOrderBy('user.id', 'DESC')
      .offset(page.offset)
      .limit(page.limit)
      .getManyAndCount();
    return { users, total };
  }
}
