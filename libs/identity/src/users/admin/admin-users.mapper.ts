import { type Labelled, type UserEntity } from '../user.entity';
import { type AdminUserResponse } from './admin-users.dto';

const toValueLabel = (stored: Labelled) => ({ value: stored.id, label: stored.label });

/** A user as the admin API shows it: never the entity (no password hash, no session cut-off). */
export function toAdminUserResponse(user: UserEntity): AdminUserResponse {
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
