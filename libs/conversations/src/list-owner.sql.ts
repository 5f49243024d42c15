import { ownedBy } from '@fed/persistence';
import { type ListOwner, isAcrossAgents } from './conversation-owner';

/** The owner condition; across agents it matches the `*_account_*_idx` partial indexes, so pages are read in order. */
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
