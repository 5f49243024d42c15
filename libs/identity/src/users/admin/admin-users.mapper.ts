import { type Labelled, type UserEntity } from '../user.entity';
import { type AdminUserResponse } from './admin-users.dto';

const toValueLabel = (stored: Labelled) => ({ value: stored.id, label: stored.label });

/** Also what `GET /v1/users/me` shows of the user. */
export type AdminUserFields = Pick<
  UserEntity,
  | 'id'
  | 'email'
  | 'username'
  | 'emailVerified'
  | 'role'
  | 'status'
  | 'organization'
  | 'job'
  | 'bio'
  | 'createdAt'
  | 'lastLoginAt'
>;

/** Never the entity: no password hash, no session cut-off. */
export function toAdminUserResponse(user: AdminUserFields): AdminUserResponse {
  return {
    userId: user.id,
    email: user.email,
    username: user.username,
    emailVerified: user.emailVerified,
    role: user.role,
    status: user.status,
    ...(user.organization ? { organization: toValueLabel(user.organization) } : {}),
    ...(user.job ? { jobType: toValueLabel(user.job) } : {}),
    ...(user.bio !== null ? { bio: user.bio } : {}),
    createdAt: user.createdAt.toISOString(),
    ...(user.lastLoginAt ? { lastLoginAt: user.lastLoginAt.toISOString() } : {}),
  };
}
