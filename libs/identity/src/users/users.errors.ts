export type UsersErrorCode =
  | 'invalid_email'
  | 'invalid_username'
  | 'invalid_name'
  | 'invalid_password'
  | 'invalid_role'
  | 'user_exists'
  | 'user_not_found'
  | 'tenant_not_found'
  | 'invalid_status';

/** A refused user operation; the message is safe to show. Admin APIs map codes to 400/404. */
export class UsersError extends Error {
  constructor(
    readonly code: UsersErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'UsersError';
  }
}
