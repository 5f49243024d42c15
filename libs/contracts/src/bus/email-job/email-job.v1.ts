/** Spec document 3, user status table. */
export const statusEmailEvents = ['user_approved', 'user_rejected'] as const;
export type StatusEmailEvent = (typeof statusEmailEvents)[number];

/** Single-use links: the worker makes the token when it sends, so no secret waits in the queue. */
export const accountEmailEvents = ['email_verification', 'password_reset', 'account_exists'] as const;
export type AccountEmailEvent = (typeof accountEmailEvents)[number];

export const emailEvents = [...statusEmailEvents, ...accountEmailEvents] as const;
export type EmailEvent = (typeof emailEvents)[number];

export function isAccountEmailEvent(event: EmailEvent): event is AccountEmailEvent {
  return (accountEmailEvents as readonly string[]).includes(event);
}

/**
 * Versioned, since a worker of another release may send it. It names the user, not the address: the
 * worker reads the current address and language.
 */
export interface EmailJobV1 {
  version: 1;
  userId: string;
  event: EmailEvent;
  /** Account e-mails: the language of the page that asked (one of the 14 tags). */
  locale?: string;
  /** Account e-mails: the sign-in request the link's page leads back to. */
  interaction?: string;
}

export type EmailJob = EmailJobV1;
