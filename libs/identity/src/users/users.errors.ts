import { domainErrors } from '@fed/contracts';

/**
 * Messages are safe to show. Missing user 404, refused transition 400 (spec document 3, "Errors"); a tenant
 * is only named in a request body, so a missing one is a bad parameter.
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
  nothing_to_change: 'invalid_request',
  // Management scopes need the admin role, so an operator who is not an admin would hold nothing.
  operator_needs_admin: 'invalid_request',
  // Name and bio of an identity-provider user are rewritten at each sign-in.
  profile_managed_by_idp: 'invalid_request',
}) {}

export type UsersErrorCode = UsersError['code'];
