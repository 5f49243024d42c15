import { domainErrors } from '@fed/contracts';

/**
 * A refused user operation; the message is safe to show. Each code names the REST API's answer: a
 * user that is not there is 404, a refused transition 400 (spec document 3, "Errors"); a tenant is
 * only ever named in a request body, so a missing one is a bad parameter.
 */
export class UsersError extends domainErrors({
  invalid_email: 'invalid_parameter',
  invalid_username: 'invalid_parameter',
  invalid_name: 'invalid_parameter',
  invalid_password: 'invalid_parameter',
  invalid_role: 'invalid_parameter',
  user_exists: 'conflict',
  user_not_found: 'not_found',
  tenant_not_found: 'invalid_parameter',
  invalid_status: 'invalid_request',
  // An admin removing their own account would lock the tenant out of its admin API by mistake.
  cannot_delete_self: 'invalid_request',
  // PATCH /v1/users/me without displayName or bio.
  nothing_to_change: 'invalid_request',
  // A user of a tenant's identity provider: their name and bio are the provider's, rewritten at each sign-in.
  profile_managed_by_idp: 'invalid_request',
}) {}

export type UsersErrorCode = UsersError['code'];
