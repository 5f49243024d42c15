import { isUuid } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { PersonaEntity, PlaybookEntity, SkillEntity } from './catalog.entities';
import { CatalogError } from './catalog.errors';
import { type CatalogRepository, type CatalogTextChanges } from './catalog.repository';
import { catalogDescription, catalogInstructions, catalogName, isPersonaKey, personaKey } from './catalog.rules';

export type CatalogKind = 'persona' | 'playbook' | 'skill';

/** One record as an operator sees it (platformctl), instructions included. */
export interface CatalogItem {
  kind: CatalogKind;
  /** The persona key, or the playbook or skill id. */
  ref: string;
  name: string;
  description: string;
  instructions: string;
  /** Playbooks: active; skills: available; personas: always true. */
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface CatalogFields {
  /** Personas only, and only at creation. */
  key?: string;
  name?: string;
  description?: string;
  instructions?: string;
  /** Playbooks (active) and skills (available) only; true when a record is created without it. */
  enabled?: boolean;
}

export interface CatalogPage {
  items: CatalogItem[];
  total: number;
}

function toItem(kind: CatalogKind, row: PersonaEntity | PlaybookEntity | SkillEntity): CatalogItem {
  const ref = row instanceof PersonaEntity ? row.key : row.id;
  const enabled = row instanceof PlaybookEntity ? row.active : row instanceof SkillEntity ? row.available : true;
  const { name, description, instructions, createdAt, updatedAt } = row;
  return { kind, ref, name, description, instructions, enabled, createdAt, updatedAt };
}

/**
 * Creating, changing and removing catalog records, with the text rules of catalog.rules: platformctl and
 * `/api/v1/admin/{personas,playbooks,skills}` call the same methods.
 */
export class CatalogAdminService {
  private readonly now: () => Date;

  constructor(
    private readonly repository: CatalogRepository,
    options: { now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async list(kind: CatalogKind): Promise<CatalogItem[]> {
    const rows =
      kind === 'persona'
        ? await this.repository.allPersonas()
        : kind === 'playbook'
          ? await this.repository.allPlaybooks()
          : await this.repository.allSkills();
    return rows.map((row) => toItem(kind, row));
  }

  /** A numbered page in the order of `list`, and how many records of the kind there are. */
  async page(kind: CatalogKind, params: { offset: number; limit: number }): Promise<CatalogPage> {
    const [rows, total] = await this.repository.pageAll(kind, params.offset, params.limit);
    return { items: rows.map((row) => toItem(kind, row)), total };
  }

  async get(kind: CatalogKind, ref: string): Promise<CatalogItem> {
    this.checkRef(kind, ref);
    const row = await this.repository.findByRef(kind, ref);
    if (!row) throw notFound(kind, ref);
    return toItem(kind, row);
  }

  async create(kind: CatalogKind, fields: CatalogFields): Promise<CatalogItem> {
    if (kind === 'persona' && fields.enabled !== undefined) throw personaAlwaysEnabled();
    if (kind !== 'persona' && fields.key !== undefined) {
      throw new CatalogError('invalid_key', `a ${kind} has no key: its id is generated`);
    }
    if (kind === 'persona' && fields.key === undefined) {
      throw new CatalogError('invalid_key', 'a persona needs a key (the personaKey of chat requests)');
    }
    const key = kind === 'persona' ? personaKey(fields.key ?? '') : '';
    const now = this.now();
    const text = {
      name: catalogName(fields.name ?? ''),
      description: catalogDescription(fields.description ?? ''),
      instructions: catalogInstructions(fields.instructions ?? ''),
      createdAt: now,
      updatedAt: now,
    };
    if (kind === 'persona') {
      const persona = Object.assign(new PersonaEntity(), { key, ...text });
      if (!(await this.repository.insertPersona(persona))) {
        throw new CatalogError('persona_exists', `a persona with the key ${key} exists already`);
      }
      return toItem(kind, persona);
    }
    if (kind === 'playbook') {
      const playbook = Object.assign(new PlaybookEntity(), {
        id: randomUUID(),
        active: fields.enabled ?? true,
        ...text,
      });
      await this.repository.insertPlaybook(playbook);
      return toItem(kind, playbook);
    }
    const skill = Object.assign(new SkillEntity(), { id: randomUUID(), available: fields.enabled ?? true, ...text });
    await this.repository.insertSkill(skill);
    return toItem(kind, skill);
  }

  /** Replaces the given fields (a playbook's or skill's `enabled` included); the key or id never changes. */
  async update(kind: CatalogKind, ref: string, fields: CatalogFields): Promise<CatalogItem> {
    if (fields.key !== undefined) throw new CatalogError('invalid_key', 'a persona key cannot change');
    if (kind === 'persona' && fields.enabled !== undefined) throw personaAlwaysEnabled();
    const changes: CatalogTextChanges & { active?: boolean; available?: boolean } = {};
    if (fields.name !== undefined) changes.name = catalogName(fields.name);
    if (fields.description !== undefined) changes.description = catalogDescription(fields.description);
    if (fields.instructions !== undefined) changes.instructions = catalogInstructions(fields.instructions);
    if (fields.enabled !== undefined) changes[kind === 'playbook' ? 'active' : 'available'] = fields.enabled;
    if (Object.keys(changes).length === 0) {
      throw new CatalogError(
        'nothing_to_update',
        kind === 'persona'
          ? 'give at least one of the name, description or instructions'
          : `give at least one of the name, description, instructions or whether it is ${kind === 'playbook' ? 'active' : 'available'}`,
      );
    }
    this.checkRef(kind, ref);
    const row = await this.repository.updateReturning(kind, ref, { ...changes, updatedAt: this.now() });
    if (!row) throw notFound(kind, ref);
    return toItem(kind, row);
  }

  /** Playbooks: activate or deactivate; skills: enable or disable. */
  async setEnabled(kind: Exclude<CatalogKind, 'persona'>, id: string, enabled: boolean): Promise<CatalogItem> {
    return this.update(kind, id, { enabled });
  }

  async delete(kind: CatalogKind, ref: string): Promise<void> {
    this.checkRef(kind, ref);
    const deleted =
      kind === 'persona'
        ? await this.repository.deletePersona(ref)
        : kind === 'playbook'
          ? await this.repository.deletePlaybook(ref)
          : await this.repository.deleteSkill(ref);
    if (!deleted) throw notFound(kind, ref);
  }

  // A ref of the wrong shape names nothing; checked here so it never reaches SQL (a uuid column refuses it).
  private checkRef(kind: CatalogKind, ref: string): void {
    if (kind === 'persona' ? !isPersonaKey(ref) : !isUuid(ref)) throw notFound(kind, ref);
  }
}

function personaAlwaysEnabled(): CatalogError {
  return new CatalogError('invalid_enabled', 'a persona is always offered: only playbooks and skills are switched off');
}

function notFound(kind: CatalogKind, ref: string): CatalogError {
  const hint = kind === 'persona' ? '' : ' (ids are UUIDs: see the list command)';
  return new CatalogError(`${kind}_not_found`, `no ${kind} ${JSON.stringify(ref)}${hint}`);
}
