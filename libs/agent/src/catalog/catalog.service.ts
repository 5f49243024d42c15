import { type CursorPage, type PageQuery, isStorableText, isUuid, toCursorPage, toPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { CatalogError } from './catalog.errors';
import {
  type CatalogPageQuery,
  CatalogRepository,
  type PersonaListing,
  type PlaybookListing,
  type SkillListing,
} from './catalog.repository';
import { isPersonaKey } from './catalog.rules';

/** The chat request's catalog parameters (spec: personaKey, playbookId, skillIds). */
export interface CatalogSelection {
  personaKey?: string;
  playbookId?: string;
  skillIds?: readonly string[];
}

/** What a turn's system prompt is built from. */
export interface ResolvedCatalog {
  persona?: { key: string; name: string; instructions: string };
  playbook?: { id: string; name: string; instructions: string };
  /** In the order the request named them, each once. */
  skills: { id: string; name: string; instructions: string }[];
}

// Name order, A to Z by default (unlike the spec's desc): a catalog is read like an index.
const LIST_ORDER = { defaultOrder: 'asc' } as const;

@Injectable()
export class CatalogService {
  constructor(private readonly repository: CatalogRepository) {}

  listPersonas(query: PageQuery): Promise<CursorPage<PersonaListing>> {
    return this.list(
      'personas',
      query,
      isPersonaKey,
      (page) => this.repository.pagePersonas(page),
      (row) => row.key,
    );
  }

  listPlaybooks(query: PageQuery): Promise<CursorPage<PlaybookListing>> {
    return this.list(
      'playbooks',
      query,
      isUuid,
      (page) => this.repository.pagePlaybooks(page),
      (row) => row.id,
    );
  }

  listSkills(query: PageQuery): Promise<CursorPage<SkillListing>> {
    return this.list(
      'skills',
      query,
      isUuid,
      (page) => this.repository.pageSkills(page),
      (row) => row.id,
    );
  }

  /** An unknown personaKey or a bad playbookId is a 400 `invalid_parameter` (spec); unknown skillIds are ignored. */
  async resolveForTurn(selection: CatalogSelection): Promise<ResolvedCatalog> {
    const { personaKey, playbookId } = selection;
    if (personaKey !== undefined && !isPersonaKey(personaKey)) throw unknownPersona();
    if (playbookId !== undefined && !isUuid(playbookId)) {
      throw new CatalogError('invalid_playbook', 'playbookId must be a playbookId returned by GET /v1/playbooks');
    }
    const [persona, playbook, skills] = await Promise.all([
      personaKey === undefined ? null : this.repository.findPersona(personaKey),
      playbookId === undefined ? null : this.repository.findPlaybook(playbookId),
      this.availableSkills(selection.skillIds),
    ]);
    if (personaKey !== undefined && !persona) throw unknownPersona();
    if (playbookId !== undefined && !playbook) {
      throw new CatalogError('invalid_playbook', 'playbookId does not name a playbook (see GET /v1/playbooks)');
    }
    if (playbook && !playbook.active) {
      throw new CatalogError('invalid_playbook', 'playbookId names a deactivated playbook');
    }
    return {
      ...(persona ? { persona: { key: persona.key, name: persona.name, instructions: persona.instructions } } : {}),
      ...(playbook ? { playbook: { id: playbook.id, name: playbook.name, instructions: playbook.instructions } } : {}),
      skills,
    };
  }

  /** For agent-runtime's prompt from stored ids: whatever is gone or deactivated by then is skipped, never an error. */
  async instructionsFor(selection: CatalogSelection): Promise<ResolvedCatalog> {
    const { personaKey, playbookId } = selection;
    const [persona, playbook, skills] = await Promise.all([
      isPersonaKey(personaKey) ? this.repository.findPersona(personaKey) : null,
      isUuid(playbookId) ? this.repository.findPlaybook(playbookId) : null,
      this.availableSkills(selection.skillIds),
    ]);
    return {
      ...(persona ? { persona: { key: persona.key, name: persona.name, instructions: persona.instructions } } : {}),
      ...(playbook?.active
        ? { playbook: { id: playbook.id, name: playbook.name, instructions: playbook.instructions } }
        : {}),
      skills,
    };
  }

  private async availableSkills(skillIds: readonly unknown[] | undefined): Promise<ResolvedCatalog['skills']> {
    // A malformed id cannot name a skill: it is ignored like an unknown one (and never reaches SQL).
    const wanted = [...new Set((skillIds ?? []).filter(isUuid).map((id) => id.toLowerCase()))];
    const found = new Map((await this.repository.findAvailableSkills(wanted)).map((skill) => [skill.id, skill]));
    return wanted.flatMap((id) => {
      const skill = found.get(id);
      return skill ? [{ id: skill.id, name: skill.name, instructions: skill.instructions }] : [];
    });
  }

  private async list<T extends { name: string }>(
    list: string,
    query: PageQuery,
    isKey: (value: unknown) => boolean,
    page: (query: CatalogPageQuery) => Promise<T[]>,
    keyOf: (row: T) => string,
  ): Promise<CursorPage<T>> {
    const params = toPageParams(query, { list, ...LIST_ORDER });
    let after: [string, string] | undefined;
    if (params.after) {
      // The cursor is not signed: its parts go to SQL only when they have the shape we put there.
      const [name, key, ...rest] = params.after;
      if (typeof name !== 'string' || !isStorableText(name) || !isKey(key) || rest.length > 0) {
        throw new CatalogError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
      }
      after = [name, key as string];
    }
    const rows = await page({ limit: params.limit, order: params.order, after });
    return toCursorPage(rows, params, list, (row) => [row.name, keyOf(row)]);
  }
}

function unknownPersona(): CatalogError {
  return new CatalogError('unknown_persona', 'personaKey does not name a persona (see GET /v1/personas)');
}
