import { modifyReturning } from '@fed/persistence';
import { IsNull, type DataSource } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';

export class ApiKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(key: ApiKeyEntity): Promise<void> {
    await this.dataSource.manager.insert(ApiKeyEntity, key);
  }

  findByHash(keyHash: Buffer): Promise<ApiKeyEntity | null> {
    return this.dataSource.manager.findOne(ApiKeyEntity, { where: { keyHash } });
  }

  list(): Promise<ApiKeyEntity[]> {
    return this.dataSource.manager.find(ApiKeyEntity, { order: { createdAt: 'ASC', id: 'ASC' } });
  }

  liveNamed(name: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.manager.find(ApiKeyEntity, { where: { name, revokedAt: IsNull() } });
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const rows = await modifyReturning<{ id: string }>(
      this.dataSource.manager,
      `UPDATE "gateway"."api_keys" SET "revoked_at" = $1 WHERE "id" = $2 AND "revoked_at" IS NULL RETURNING "id"`,
      [at, id],
    );
    return rows.length === 1;
  }
}
