import type { ChatMessages } from './messages';

/** Codes of the failures the app itself finds (the platform's own come with their message). */
export const CONNECTION_LOST = 'connection_lost';
export const UNREACHABLE = 'unreachable';

/** What a failed answer says: the app's words for its own failures, the platform's message as it came. */
export function turnErrorText(t: ChatMessages, error: { code: string; message: string }): string {
  if (error.code === CONNECTION_LOST) return t.connectionLost;
  if (error.code === UNREACHABLE) return t.unreachable;
  return error.message || t.answerFailed;
}
