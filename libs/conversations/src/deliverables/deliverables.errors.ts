import { domainErrors } from '@fed/contracts';

/** A deliverable download refused; the message is safe to show. */
export class DeliverablesError extends domainErrors({
  conversation_not_found: 'conversation_not_found',
  deliverable_not_found: 'not_found',
}) {}

export type DeliverablesErrorCode = DeliverablesError['code'];
