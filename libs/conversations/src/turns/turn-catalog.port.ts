/** The persona, playbook and skills a chat request names, checked before the turn is admitted. */
export interface TurnCatalogInput {
  personaKey?: string;
  playbookId?: string;
  skillIds?: string[];
}

/**
 * What the turn needs of the agent catalog (libs/agent provides it): unknown persona or an unknown or
 * deactivated playbook throws a 400 ApiError; unknown or unavailable skills are dropped.
 */
export interface TurnCatalog {
  resolveForTurn(input: TurnCatalogInput): Promise<{ skills: { id: string }[] }>;
}

export const TURN_CATALOG = Symbol.for('fed.conversations.TurnCatalog');
