import { type AccessTokenPrincipal, CurrentPrincipal, SaasOnly } from '@fed/auth';
import { Body, Controller, Get, Header, Patch } from '@nestjs/common';
import { UpdateProfileBody, type UserProfileResponse } from './user-profile.dto';
import { UserProfileService } from './user-profile.service';

/**
 * `{base_url}/api/v1/users/me` (document 2, "User information"; SaaS only). Any valid token, no scope:
 * basic user information is allowed by default (document 1). There is no user id in the path, so
 * another user's profile is never reachable.
 */
@SaasOnly()
@Controller('api/v1/users')
export class UserProfileController {
  constructor(private readonly profiles: UserProfileService) {}

  @Get('me')
  @Header('Cache-Control', 'no-store')
  get(@CurrentPrincipal() principal: AccessTokenPrincipal): Promise<UserProfileResponse> {
    return this.profiles.get(principal);
  }

  @Patch('me')
  @Header('Cache-Control', 'no-store')
  update(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Body() body: UpdateProfileBody,
  ): Promise<UserProfileResponse> {
    return this.profiles.update(principal, body);
  }
}
