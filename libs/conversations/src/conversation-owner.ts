import { type AccessTokenPrincipal } from '@fed/auth';

/** The owner of every row a request touches (document 2: another user's data is a 404). */
export interface ConversationOwner {
  userId: string;
  tenantId: string | null;
}

export function ownerOf(principal: AccessTokenPrincipal): ConversationOwner {
  return { userId: principal.subject, tenantId: principal.tenant?.id ?? null };
}
