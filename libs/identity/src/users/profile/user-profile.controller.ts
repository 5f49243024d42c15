import { type AccessTokenPrincipal, CurrentPrincipal, SaasOnly } from '@fed/auth';
import { Body, Controller, Get, Header, Patch } from '@nestjs/common';
import { UpdateProfileBody, type UserProfileResponse } from './user-profile.dto';
import { UserProfileService } from './user-profile.service';

/** Document 2, "User information": any valid token (document 1); no user id in the path, so no one else's profile. */
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
