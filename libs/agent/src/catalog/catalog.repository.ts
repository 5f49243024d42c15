import { type SortOrder } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { PersonaEntity, PlaybookEntity, SkillEntity } from './catalog.entities';

/** A page request whose cursor position has been checked: `[name, key or id]` of the last row shown. */
export interface CatalogPageQuery {
  limit: number;
  order: SortOrder;
  after?: [string, string];
}

/** What the lists show: never the instructions. */
export type PersonaListing = Pick<PersonaEntity, 'key' | 'name' | 'description'>;
export type PlaybookListing = Pick<PlaybookEntity, 'id' | 'name' | 'description'>;
export type SkillListing = Pick<SkillEntity, 'id' | 'name' | 'description'>;

export type CatalogTextChanges = Partial<Pick<PersonaEntity, 'name' | 'description' | 'instructions'>>;

export interface CatalogSeed {
  personas: PersonaEntity[];
  playbooks: PlaybookEntity[];
  skills: SkillEntity[];
}

interface Table<T extends ObjectLiteral> {
  entity: EntityTarget<T>;
  key: 'key' | 'id';
  /** SQL condition for the rows the public list shows. */
  listed?: string;
}

const personas: Table<PersonaEntity> = { entity: PersonaEntity, key: 'key' };
const playbooks: Table<PlaybookEntity> = { entity: PlaybookEntity, key: 'id', listed: 'row.active' };
const skills: Table<SkillEntity> = { entity: SkillEntity, key: 'id', listed: 'row.available' };

export type CatalogTable = 'persona' | 'playbook' | 'skill';
export type CatalogRow = PersonaEntity | PlaybookEntity | SkillEntity;
const tables: Record<CatalogTable, Table<CatalogRow>> = {
  persona: personas as Table<CatalogRow>,
  playbook: playbooks as Table<CatalogRow>,
  skill: skills as Table<CatalogRow>,
};

const SEED_LOCK = "hashtext('agent.catalog-seed')";

/** The only place that queries the catalog (schema `agent`); it is platform-wide: no user or tenant column. */
@Injectable()
export class CatalogRepository {
  constructor(private readonly dataSource: DataSource) {}

  pagePersonas(query: CatalogPageQuery): Promise<PersonaListing[]> {
    return this.page(personas, query);
  }

  pagePlaybooks(query: CatalogPageQuery): Promise<PlaybookListing[]> {
    return this.page(playbooks, query);
  }

  pageSkills(query: CatalogPageQuery): Promise<SkillListing[]> {
    return this.page(skills, query);
  }

  findPersona(key: string): Promise<PersonaEntity | null> {
    return this.dataSource.manager.findOne(PersonaEntity, { where: { key } });
  }

  findPlaybook(id: string): Promise<PlaybookEntity | null> {
    return this.dataSource.manager.findOne(PlaybookEntity, { where: { id } });
  }

  /** The available skills among `ids` (ids must be UUIDs), in no particular order. */
  findAvailableSkills(ids: readonly string[]): Promise<SkillEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(SkillEntity, { where: { id: In([...ids]), available: true } });
  }

  allPersonas(): Promise<PersonaEntity[]> {
    return this.dataSource.manager.find(PersonaEntity, { order: { name: 'ASC', key: 'ASC' } });
  }

  allPlaybooks(): Promise<PlaybookEntity[]> {
    return this.dataSource.manager.find(PlaybookEntity, { order: { name: 'ASC', id: 'ASC' } });
  }

  allSkills(): Promise<SkillEntity[]> {
    return this.dataSource.manager.find(SkillEntity, { order: { name: 'ASC', id: 'ASC' } });
  }

  /** Every record of the kind (deactivated ones too) in name order, a numbered page of them, and their count. */
  pageAll(kind: CatalogTable, offset: number, limit: number): Promise<[CatalogRow[], number]> {
    const table = tables[kind];
    return this.dataSource.manager.findAndCount(table.entity, {
      order: { name: 'ASC', [table.key]: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  findByRef(kind: CatalogTable, ref: string): Promise<CatalogRow | null> {
    const table = tables[kind];
    return this.dataSource.manager.findOne(table.entity, { where: { [table.key]: ref } });
  }

  /** The record as it is after the change, or null when there is none. */
  async updateReturning(
    kind: CatalogTable,
    ref: string,
    changes: CatalogTextChanges & { active?: boolean; available?: boolean; updatedAt: Date },
  ): Promise<CatalogRow | null> {
    if (!(await this.update(tables[kind], ref, changes))) return null;
    return this.findByRef(kind, ref);
  }

  /** False when the key is taken (atomic: no read-then-write). */
  insertPersona(persona: PersonaEntity): Promise<boolean> {
    return this.insert(personas, persona);
  }

  insertPlaybook(playbook: PlaybookEntity): Promise<boolean> {
    return this.insert(playbooks, playbook);
  }

  insertSkill(skill: SkillEntity): Promise<boolean> {
    return this.insert(skills, skill);
  }

  deletePersona(key: string): Promise<boolean> {
    return this.delete(personas, key);
  }

  deletePlaybook(id: string): Promise<boolean> {
    return this.delete(playbooks, id);
  }

  deleteSkill(id: string): Promise<boolean> {
    return this.delete(skills, id);
  }

  /** Seeds when all three tables are empty; an advisory lock makes two concurrent starts seed once. */
  insertIfEmpty(seed: CatalogSeed): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(${SEED_LOCK})`);
      const [row] = (await manager.query(
        `SELECT EXISTS (SELECT 1 FROM "agent"."personas")
             OR EXISTS (SELECT 1 FROM "agent"."playbooks")
             OR EXISTS (SELECT 1 FROM "agent"."skills") AS "taken"`,
      )) as { taken: boolean }[];
      if (row?.taken) return false;
      await manager.insert(PersonaEntity, seed.personas);
      await manager.insert(PlaybookEntity, seed.playbooks);
      await manager.insert(SkillEntity, seed.skills);
      return true;
    });
  }

  // Keyset pagination over the (name, key) indexes: the row comparison continues after the last row shown.
  private page<T extends ObjectLiteral>(table: Table<T>, query: CatalogPageQuery): Promise<T[]> {
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const builder = this.dataSource.manager
      .createQueryBuilder(table.entity, 'row')
      .select(['row.name', 'row.description', `row.${table.key}`]);
    if (table.listed) builder.where(table.listed);
    if (query.after) {
      const keyType = table.key === 'id' ? 'uuid' : 'text';
      builder.andWhere(
        `(row.name, row.${table.key}) ${query.order === 'asc' ? '>' : '<'} (CAST(:afterName AS text), CAST(:afterKey AS ${keyType}))`,
        { afterName: query.after[0], afterKey: query.after[1] },
      );
    }
    return builder
      .orderBy('row.name', direction)
      .addOrderBy(`row.${table.key}`, direction)
      .limit(query.limit + 1)
      .getMany();
  }

  private async insert<T extends ObjectLiteral>(table: Table<T>, row: T): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(table.entity)
      .values(row)
      .orIgnore()
      .returning(table.key)
      .execute();
    return (result.raw as unknown[]).length === 1;
  }

  private async update<T extends ObjectLiteral>(table: Table<T>, key: string, changes: Partial<T>): Promise<boolean> {
    const result = await this.dataSource.manager.update(table.entity, { [table.key]: key }, changes);
    return result.affected === 1;
  }

  private async delete<T extends ObjectLiteral>(table: Table<T>, key: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(table.entity, { [table.key]: key });
    return result.affected === 1;
  }
}
