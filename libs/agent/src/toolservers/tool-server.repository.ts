import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { type RecordedTool, ToolServerEntity } from './tool-server.entity';

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

  enabled(): Promise<ToolServerEntity[]> {
    return this.dataSource.manager.find(ToolServerEntity, { where: { enabled: true }, order: { name: 'ASC' } });
  }

  findByName(name: string): Promise<ToolServerEntity | null> {
    return this.dataSource.manager.findOne(ToolServerEntity, { where: { name } });
  }

  async recordTools(id: string, tools: RecordedTool[], updatedAt: Date): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      ToolServerEntity,
      { id },
      {
        tools: tools as QueryDeepPartialEntity<RecordedTool>[],
        updatedAt,
      },
    );
    return result.affected === 1;
  }

  async deleteByName(name: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(ToolServerEntity, { name });
    return result.affected === 1;
  }
}
