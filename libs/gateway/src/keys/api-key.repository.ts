import {
  type DataSource,
  type FindOptionsWhere,
  ILike,
  IsNull,
  LessThanOrEqual,
  MoreThan,
  Not,
  type QueryDeepPartialEntity,
} from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';

/** Live: neither revoked nor past its expiry; revoked wins over expired. */
export type ApiKeyState = 'live' | 'revoked' | 'expired';

export interface ApiKeyFilter {
  state?: ApiKeyState;
  tenantId?: string;
  /** Part of the name, any letter case. */
  search?: string;
}

// LIKE's own characters, matched as themselves (backslash is PostgreSQL's default escape).
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

export class ApiKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(key: ApiKeyEntity): Promise<void> {
    await this.dataSource.manager.insert(ApiKeyEntity, key);
  }

  findByHash(keyHash: Buffer): Promise<ApiKeyEntity | null> {
    return this.dataSource.manager.findOne(ApiKeyEntity, { where: { keyHash } });
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.dataSource.manager.findOne(ApiKeyEntity, { where: { id } });
  }

  /** Newest first; every match when `page` is absent. */
  find(
    filter: ApiKeyFilter,
    now: Date,
    page?: { limit: number; offset: number },
  ): Promise<[rows: ApiKeyEntity[], total: number]> {
    const common: FindOptionsWhere<ApiKeyEntity> = {
      ...(filter.tenantId !== undefined ? { tenantId: filter.tenantId } : {}),
      ...(filter.search !== undefined ? { name: ILike(`%${likeEscaped(filter.search)}%`) } : {}),
    };
    const where: FindOptionsWhere<ApiKeyEntity>[] =
      filter.state === 'live'
        ? [
            { ...common, revokedAt: IsNull(), expiresAt: IsNull() },
            { ...common, revokedAt: IsNull(), expiresAt: MoreThan(now) },
          ]
        : filter.state === 'revoked'
          ? [{ ...common, revokedAt: Not(IsNull()) }]
          : filter.state === 'expired'
            ? [{ ...common, revokedAt: IsNull(), expiresAt: LessThanOrEqual(now) }]
            : [common];
    return this.dataSource.manager.findAndCount(ApiKeyEntity, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      ...(page ? { take: page.limit, skip: page.offset } : {}),
    });
  }

  liveNamed(name: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.manager.find(ApiKeyEntity, { where: { name, revokedAt: IsNull() } });
  }

  /** Changes a key that is not revoked (in the statement itself, so a revocation meanwhile wins); false if none. */
  async updateUnrevoked(id: string, changes: QueryDeepPartialEntity<ApiKeyEntity>): Promise<boolean> {
    const result = await this.dataSource.manager.update(ApiKeyEntity, { id, revokedAt: IsNull() }, changes);
    return result.affected === 1;
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    const rows = (await this.dataSource.query(`SELECT 1 FROM "identity"."tenants" WHERE "id" = $1`, [
      tenantId,
    ])) as unknown[];
    return rows.length === 1;
  }

  /** A tenant by its name or its id (any letter case). */
  async tenantIdNamed(nameOrId: string): Promise<string | null> {
    const [row] = (await this.dataSource.query(
      `SELECT "id" FROM "identity"."tenants" WHERE "name" = $1 OR "id"::text = lower($1) LIMIT 1`,
      [nameOrId],
    )) as { id: string }[];
    return row?.id ?? null;
  }
}
