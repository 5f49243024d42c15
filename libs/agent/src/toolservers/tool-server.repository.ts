import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { type OfferedTool, type RecordedTool, ToolServerEntity } from './tool-server.entity';

/** What a successful listing of the server's tools records. */
export interface ToolListing {
  tools: RecordedTool[];
  offeredTools: OfferedTool[];
  refreshedAt: Date;
  updatedAt: Date;
}

/** What a change of a server's settings writes: the new settings and the listing made with them. */
export type ToolServerChanges = ToolListing &
  Pick<ToolServerEntity, 'url' | 'authHeader' | 'allowedTools' | 'timeoutMs'>;

/** The only place that queries `agent.tool_servers`. The registry is platform-wide. */
export class ToolServerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** False when the name is taken (the unique constraint decides, not a read before the write). */
  async insert(server: ToolServerEntity): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(ToolServerEntity)
      // jsonb of `unknown` values (input schemas) is beyond TypeORM's partial-entity type.
      .values(server as QueryDeepPartialEntity<ToolServerEntity>)
      .orIgnore()
      .returning('id')
      .execute();
    return (result.raw as unknown[]).length === 1;
  }

  all(): Promise<ToolServerEntity[]> {
    return this.dataSource.manager.find(ToolServerEntity, { order: { name: 'ASC' } });
  }

  /** A numbered page in name order, and how many servers there are. */
  page(offset: number, limit: number): Promise<[ToolServerEntity[], number]> {
    return this.dataSource.manager.findAndCount(ToolServerEntity, {
      order: { name: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  enabled(): Promise<ToolServerEntity[]> {
    return this.dataSource.manager.find(ToolServerEntity, { where: { enabled: true }, order: { name: 'ASC' } });
  }

  findByName(name: string): Promise<ToolServerEntity | null> {
    return this.dataSource.manager.findOne(ToolServerEntity, { where: { name } });
  }

  async recordListing(id: string, listing: ToolListing): Promise<boolean> {
    return this.update(id, { ...listing, refreshError: null });
  }

  /** The tools stay those of the last successful listing. */
  async recordRefreshFailure(id: string, refreshedAt: Date, refreshError: string): Promise<boolean> {
    return this.update(id, { refreshedAt, refreshError });
  }

  async change(id: string, changes: ToolServerChanges): Promise<boolean> {
    return this.update(id, { ...changes, refreshError: null });
  }

  async deleteByName(name: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(ToolServerEntity, { name });
    return result.affected === 1;
  }

  private async update(id: string, values: Partial<ToolServerEntity>): Promise<boolean> {
    // jsonb of `unknown` values (input schemas) is beyond TypeORM's partial-entity type.
    const result = await this.dataSource.manager.update(
      ToolServerEntity,
      { id },
      values as QueryDeepPartialEntity<ToolServerEntity>,
    );
    return result.affected === 1;
  }
}
