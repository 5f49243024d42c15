import { domainErrors } from '@fed/contracts';

/** A refused chat turn (start, rejoin, cancel); the message is safe to show. */
export class TurnsError extends domainErrors({
  conversation_not_found: 'conversation_not_found',
  conversation_archived: 'conversation_archived',
  conversation_processing: 'conversation_processing',
  no_turn_in_progress: 'not_found',
  message_not_found: 'not_found',
  input_file_not_found: 'not_found',
  invalid_model: 'invalid_parameter',
  invalid_last_event_id: 'invalid_parameter',
  not_queued: 'service_unavailable',
}) {}

export type TurnsErrorCode = TurnsError['code'];
