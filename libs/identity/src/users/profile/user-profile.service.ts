import { type AccessTokenPrincipal } from '@fed/auth';
import { isUuid } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { type UserEntity } from '../user.entity';
import { UserRepository } from '../user.repository';
import { UsersError } from '../users.errors';
import { type UpdateProfileBody, type UserProfileResponse, toUserProfileResponse } from './user-profile.dto';
import { type ProfileChanges, UserProfileRepository } from './user-profile.repository';

const notFound = () => new UsersError('user_not_found', 'no user behind this token');

/** Read on every call, so a role change or relabelled organization shows at once, whatever the token says. */
@Injectable()
export class UserProfileService {
  constructor(
    private readonly users: UserRepository,
    private readonly profiles: UserProfileRepository,
  ) {}

  async get(principal: AccessTokenPrincipal): Promise<UserProfileResponse> {
    const user = await this.userOf(principal);
    if (!user?.tenant) throw notFound();
    return toUserProfileResponse({ ...user, tenant: user.tenant });
  }

  async update(principal: AccessTokenPrincipal, body: UpdateProfileBody): Promise<UserProfileResponse> {
    const changes: ProfileChanges = {
      ...(body.displayName !== undefined ? { displayName: body.displayName } : {}),
      ...(body.bio !== undefined ? { bio: body.bio === null || body.bio.trim() === '' ? null : body.bio } : {}),
    };
    if (changes.displayName === undefined && changes.bio === undefined) {
      throw new UsersError('nothing_to_change', 'give displayName, bio or both');
    }
    const userId = userIdOf(principal);
    if (userId === undefined) throw notFound();
    const updated = await this.profiles.update(userId, changes, new Date());
    if (updated) return toUserProfileResponse(updated);
    // Nothing updated: say why (a user deleted meanwhile is as absent as one never there).
    const user = await this.users.find(userId);
    if (user?.idpSubject) {
      throw new UsersError(
        'profile_managed_by_idp',
        "your name and bio come from your organization's identity provider; change them there",
      );
    }
    throw notFound();
  }

  private userOf(principal: AccessTokenPrincipal): Promise<UserEntity | null> {
    const userId = userIdOf(principal);
    return userId === undefined ? Promise.resolve(null) : this.users.find(userId);
  }
}

// A service account's token names no user; nor does a subject that is not a user id (a UUID).
function userIdOf(principal: AccessTokenPrincipal): string | undefined {
  return !principal.isServiceAccount && isUuid(principal.subject) ? principal.subject.toLowerCase() : undefined;
}
