import { ownedBy } from '@fed/persistence';
import { type ListOwner, isAcrossAgents } from './conversation-owner';

/**
 * The conditions limiting a list to its owner, its values appended to `parameters`. Across agents (the
 * Marketplace edition, no agent named) they are the expression and predicate of the `*_account_*_idx`
 * partial indexes, so a page is read in order from the index: the owner keys `<accountId>/<agentId>`,
 * minus those of agents the account can no longer name.
 */
export function listOwnerCondition(owner: ListOwner, parameters: unknown[]): string {
  if (!isAcrossAgents(owner)) return ownedBy(owner, parameters);
  parameters.push(owner.accountId, owner.tenantId, owner.hiddenOwners);
  const n = parameters.length;
  return (
    `strpos("user_id", '/') > 0 AND split_part("user_id", '/', 1) = $${n - 2}` +
    ` AND "tenant_id" IS NOT DISTINCT FROM $${n - 1} AND "user_id" <> ALL($${n}::text[])`
  );
}

/** A listed row's agent (Marketplace owner keys `<sub>/<agentId>`); '' for a SaaS row. */
export const ROW_AGENT_ID = `split_part("user_id", '/', 2) AS "agentId"`;

/** Whether a list's items name their agent: in the Marketplace edition, always. */
export function listsAgents(owner: ListOwner): boolean {
  return isAcrossAgents(owner) || owner.agentId !== undefined;
}
