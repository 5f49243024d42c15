export type ClientsErrorCode =
  | 'invalid_client_id'
  | 'invalid_name'
  | 'invalid_grant_types'
  | 'invalid_redirect_uri'
  | 'invalid_scope'
  | 'client_exists'
  | 'client_not_found'
  | 'tenant_not_found';

/** A refused client registration or change; the message is safe to show to an operator. */
export class ClientsError extends Error {
  constructor(
    readonly code: ClientsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ClientsError';
  }
}
