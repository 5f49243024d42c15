/** Tenant null for none. */
export interface RowOwner {
  userId: string;
  tenantId: string | null;
}

/**
 * The design's first security rule: another user's or tenant's rows are never read. IS NOT DISTINCT FROM,
 * so a NULL tenant matches only NULL; the shape the `(user_id, tenant_id, ...)` indexes serve.
 */
export function ownedBy(owner: RowOwner, parameters: unknown[], alias?: string): string {
  parameters.push(owner.userId, owner.tenantId);
  const n = parameters.length;
  const column = (name: string) => (alias ? `${alias}."${name}"` : `"${name}"`);
  return `${column('user_id')} = $${n - 1} AND ${column('tenant_id')} IS NOT DISTINCT FROM $${n}`;
}
