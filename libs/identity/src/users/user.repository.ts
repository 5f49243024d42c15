import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type TenantEntity } from '../tenants/tenant.entity';
import { tenantNamed } from '../tenants/tenant.repository';
import { type UserRole, type UserStatus, UserEntity } from './user.entity';

/** Which users an operation may touch: a tenant's (an admin token's `tenant.id`), or every tenant's when unset. */
export interface UserScope {
  tenantId?: string;
}

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

  /** One statement; false when not in `from`. Leaving `approved` ends sessions issued before `at`. */
  async transition(id: string, from: UserStatus, to: UserStatus, at: Date, scope: UserScope = {}): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      UserEntity,
      { id, status: from, ...(scope.tenantId ? { tenantId: scope.tenantId } : {}) },
      { status: to, updatedAt: at, ...(from === 'approved' ? { sessionsValidAfter: at } : {}) },
    );
    return result.affected === 1;
  }

  /** Approved users only; lowering the role also ends sessions issued before `at`. */
  async setRole(
    id: string,
    role: UserRole,
    at: Date,
    scope: UserScope = {},
  ): Promise<{ changed: boolean; sessionsInvalidated: boolean }> {
    const rows = (await this.dataSource.query(
      `UPDATE "identity"."users"
          SET "role" = $2, "updated_at" = $3,
              "sessions_valid_after" = CASE WHEN "role" = 'admin' AND $2 = 'user' THEN $3 ELSE "sessions_valid_after" END
        WHERE "id" = $1 AND "status" = 'approved' AND ($4::uuid IS NULL OR "tenant_id" = $4)
    RETURNING ("sessions_valid_after" = $3) AS "invalidated"`,
      [id, role, at, scope.tenantId ?? null],
    )) as [{ invalidated: boolean }[], number];
    const [updated] = rows;
    return { changed: updated.length === 1, sessionsInvalidated: updated[0]?.invalidated === true };
  }

  /**
   * One statement, so a concurrent demotion cannot slip between the role check and the change: on only for an
   * admin; turning it off ends sessions issued before `at`.
   */
  async setPlatformOperator(
    id: string,
    operator: boolean,
    at: Date,
  ): Promise<{ changed: boolean; sessionsInvalidated: boolean }> {
    const [updated] = (await this.dataSource.query(
      `UPDATE "identity"."users"
          SET "platform_operator" = $2, "updated_at" = $3,
              "sessions_valid_after" = CASE WHEN "platform_operator" AND NOT $2 THEN $3 ELSE "sessions_valid_after" END
        WHERE "id" = $1 AND (NOT $2 OR "role" = 'admin')
    RETURNING ("sessions_valid_after" IS NOT DISTINCT FROM $3) AS "invalidated"`,
      [id, operator, at],
    )) as [{ invalidated: boolean }[], number];
    return { changed: updated.length === 1, sessionsInvalidated: updated[0]?.invalidated === true };
  }

  /** Another tenant's user is as absent as an unknown one. */
  findInScope(id: string, scope: UserScope): Promise<UserEntity | null> {
    return this.dataSource.manager.findOne(UserEntity, {
      where: { id, ...(scope.tenantId ? { tenantId: scope.tenantId } : {}) },
    });
  }

  /** One statement, with what lets them back in: refresh-token families, consents, provider sessions and grants. */
  async delete(id: string, scope: UserScope = {}): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `WITH "removed" AS (
         DELETE FROM "identity"."users" WHERE "id" = $1 AND ($2::uuid IS NULL OR "tenant_id" = $2) RETURNING "id"
       ), "families" AS (
         DELETE FROM "identity"."token_families" WHERE "user_id" IN (SELECT "id" FROM "removed")
       ), "artifacts" AS (
         DELETE FROM "identity"."oidc_artifacts"
          WHERE "payload"->>'accountId' IN (SELECT "id"::text FROM "removed")
       )
       SELECT "id" FROM "removed"`,
      [id, scope.tenantId ?? null],
    )) as { id: string }[];
    return rows.length === 1;
  }

  recordLogin(id: string, at: Date): Promise<unknown> {
    return this.dataSource.manager.update(UserEntity, { id }, { lastLoginAt: at });
  }

  updatePasswordHash(id: string, passwordHash: string): Promise<unknown> {
    return this.dataSource.manager.update(UserEntity, { id }, { passwordHash });
  }
}
