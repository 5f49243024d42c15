import { type TurnError } from '../storage/message.entity';

/** A turn whose runtime went away: the reaper's end, stored on the message and sent as its error chunk. */
export const RUNTIME_LOST: TurnError = {
  code: 'runtime_lost',
  message: 'the agent stopped before finishing this answer',
};

/** A turn whose job could not be queued (the request was answered 503). */
export const NOT_QUEUED: TurnError = {
  code: 'service_unavailable',
  message: 'the agent could not be reached; try again shortly',
};
