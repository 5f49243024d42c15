/** Whose rows a statement may read: the user key the rows are scoped by, and its tenant (null for none). */
export interface RowOwner {
  userId: string;
  tenantId: string | null;
}

/**
 * The condition limiting a statement to `owner`'s rows (the design's first security rule: another
 * user's or another tenant's rows are never read), its two values appended to `parameters`. The
 * tenant compares with IS NOT DISTINCT FROM, so a NULL tenant matches only NULL; the shape is the
 * one the `(user_id, tenant_id, ...)` indexes serve. `alias` qualifies the columns (`c."user_id"`).
 */
export function ownedBy(owner: RowOwner, parameters: unknown[], alias?: string): string {
  parameters.push(owner.userId, owner.tenantId);
  const n = parameters.length;
  const column = (name: string) => (alias ? `${alias}."${name}"` : `"${name}"`);
  return `${column('user_id')} = $${n - 1} AND ${column('tenant_id')} IS NOT DISTINCT FROM $${n}`;
}
