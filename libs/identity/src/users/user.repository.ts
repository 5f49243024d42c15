import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type TenantEntity } from '../tenants/tenant.entity';
import { tenantNamed } from '../tenants/tenant.repository';
import { type UserRole, type UserStatus, UserEntity } from './user.entity';

@Injectable()
export class UserRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(id: string): Promise<UserEntity | null> {
    return this.dataSource.manager.findOne(UserEntity, { where: { id }, relations: { tenant: true } });
  }

  any(): Promise<boolean> {
    return this.dataSource.manager.exists(UserEntity);
  }

  /** By lower-cased e-mail address or username. */
  findByLogin(login: string): Promise<UserEntity | null> {
    return this.dataSource.manager.findOne(UserEntity, {
      where: [{ email: login }, { username: login }],
      relations: { tenant: true },
    });
  }

  list(): Promise<UserEntity[]> {
    return this.dataSource.manager.find(UserEntity, { order: { email: 'ASC' }, relations: { tenant: true } });
  }

  /** See tenantNamed(): the default tenant is created on first use. */
  tenantNamed(name: string, defaultEndpoint: string): Promise<TenantEntity | null> {
    return tenantNamed(this.dataSource.manager, name, defaultEndpoint);
  }

  /** False when the e-mail address or username is taken. */
  async insert(user: UserEntity): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values(user)
      .orIgnore()
      .returning('id')
      .execute();
    return result.raw.length === 1;
  }

  /**
   * Moves `id` from `from` to `to` in one statement; false when it was not in `from` (or is absent).
   * Leaving `approved` ends the sessions issued before `at`.
   */
  async transition(id: string, from: UserStatus, to: UserStatus, at: Date): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      UserEntity,
      { id, status: from },
      { status: to, updatedAt: at, ...(from === 'approved' ? { sessionsValidAfter: at } : {}) },
    );
    return result.affected === 1;
  }

  /** Sets the role of an approved user; lowering it also invalidates the sessions issued before `at`. */
  async setRole(id: string, role: UserRole, at: Date): Promise<{ changed: boolean; sessionsInvalidated: boolean }> {
    const rows = (await this.dataSource.query(
      `UPDATE "identity"."users"
          SET "role" = $2, "updated_at" = $3,
              "sessions_valid_after" = CASE WHEN "role" = 'admin' AND $2 = 'user' THEN $3 ELSE "sessions_valid_after" END
        WHERE "id" = $1 AND "status" = 'approved'
    RETURNING ("sessions_valid_after" = $3) AS "invalidated"`,
      [id, role, at],
    )) as [{ invalidated: boolean }[], number];
    const [updated] = rows;
    return { changed: updated.length === 1, sessionsInvalidated: updated[0]?.invalidated === true };
  }

  updatePasswordHash(id: string, passwordHash: string): Promise<unknown> {
    return this.dataSource.manager.update(UserEntity, { id }, { passwordHash });
  }
}
