import { domainErrors } from '@fed/contracts';

/** Safe to show an operator; a tenant is only named in a registration, so a missing one is a bad parameter. */
export class ClientsError extends domainErrors({
  invalid_client_id: 'invalid_parameter',
  invalid_name: 'invalid_parameter',
  invalid_grant_types: 'invalid_parameter',
  invalid_redirect_uri: 'invalid_parameter',
  invalid_scope: 'invalid_parameter',
  client_exists: 'conflict',
  client_not_found: 'not_found',
  tenant_not_found: 'invalid_parameter',
  invalid_operator: 'invalid_parameter',
  invalid_pkce: 'invalid_parameter',
  public_client: 'invalid_parameter',
  // The platform signs in with it (the web app, its console): removing it here would lock the operator out.
  protected_client: 'invalid_request',
  // A client that registered itself (metadata document, RFC 7591) is what its registration says.
  self_registered_client: 'invalid_request',
  nothing_to_change: 'invalid_request',
}) {}

export type ClientsErrorCode = ClientsError['code'];
