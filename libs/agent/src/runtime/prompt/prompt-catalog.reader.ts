import type { DataSource } from 'typeorm';

/** Instructions of one persona, playbook or skill, as the system prompt uses them. */
export interface PromptPart {
  name: string;
  instructions: string;
}

export interface PromptCatalog {
  persona?: PromptPart;
  playbook?: PromptPart;
  /** In the order the request named them. */
  skills: PromptPart[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads (never writes) the instructions a turn's persona, playbook and skills add to the prompt.
 * Unknown, deactivated or unavailable entries are skipped: chat-service checked them at admission,
 * and one changed since must not fail the turn.
 */
export class PromptCatalogReader {
  constructor(private readonly dataSource: DataSource) {}

  async read(names: { personaKey?: string; playbookId?: string; skillIds?: string[] }): Promise<PromptCatalog> {
    const skillIds = (names.skillIds ?? []).filter((id) => UUID.test(id));
    const [persona, playbook, skills] = await Promise.all([
      names.personaKey && !names.personaKey.includes('\u0000')
        ? this.one(`SELECT "name", "instructions" FROM "agent"."personas" WHERE "key" = $1`, names.personaKey)
        : undefined,
      names.playbookId && UUID.test(names.playbookId)
        ? this.one(
            `SELECT "name", "instructions" FROM "agent"."playbooks" WHERE "id" = $1 AND "active"`,
            names.playbookId,
          )
        : undefined,
      skillIds.length > 0
        ? (this.dataSource.query(
            `SELECT "id", "name", "instructions" FROM "agent"."skills" WHERE "id" = ANY($1::uuid[]) AND "available"`,
            [skillIds],
          ) as Promise<(PromptPart & { id: string })[]>)
        : [],
    ]);
    const byId = new Map(skills.map((skill) => [skill.id.toLowerCase(), skill]));
    return {
      persona,
      playbook,
      skills: [...new Set(skillIds.map((id) => id.toLowerCase()))]
        .map((id) => byId.get(id))
        .filter((skill): skill is PromptPart & { id: string } => skill !== undefined)
        .map(({ name, instructions }) => ({ name, instructions })),
    };
  }

  private async one(sql: string, parameter: string): Promise<PromptPart | undefined> {
    const rows = (await this.dataSource.query(sql, [parameter])) as PromptPart[];
    return rows[0];
  }
}
