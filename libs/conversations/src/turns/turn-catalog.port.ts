/** The persona, playbook and skills a chat request names, checked before the turn is admitted. */
export interface TurnCatalogInput {
  personaKey?: string;
  playbookId?: string;
  skillIds?: string[];
}

/** The agent catalog as a turn needs it (from libs/agent): a bad persona or playbook is a 400; bad skills drop. */
export interface TurnCatalog {
  resolveForTurn(input: TurnCatalogInput): Promise<{ skills: { id: string }[] }>;
}

export const TURN_CATALOG = Symbol.for('fed.conversations.TurnCatalog');
