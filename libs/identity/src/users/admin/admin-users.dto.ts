import { isUuid } from '@fed/contracts';
import { Checks, IsNotBlank, IsStorableText, MaxCharacters, NumberedPageQueryDto, withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { MASTER_CODE_MESSAGE, isMasterCode } from '../../master-data/master-data.rules';
import { type UserRole, type UserStatus, userRoles } from '../user.entity';

/** The spec's User object (document 3, "User"); optional fields are omitted when unset. */
export interface AdminUserResponse {
  userId: string;
  email: string;
  username: string;
  emailVerified: boolean;
  role: UserRole;
  status: UserStatus;
  organization?: { value: string; label: string };
  jobType?: { value: string; label: string };
  bio?: string;
  createdAt: string;
  lastLoginAt?: string;
}

export const MAX_SEARCH_CHARACTERS = 100;

const badParameter = (message: string) => withCode('invalid_parameter', message);

function MasterCodeFilter(name: string): PropertyDecorator {
  return ValidateBy(
    { name: 'isMasterCode', validator: { validate: isMasterCode } },
    badParameter(`${name} ${MASTER_CODE_MESSAGE}`),
  );
}

const SEARCH_MESSAGE = `search must be 1-${MAX_SEARCH_CHARACTERS} characters of text`;

export class ListUsersQuery extends NumberedPageQueryDto {
  @IsOptional()
  @IsIn(userRoles, badParameter('role must be admin or user'))
  role?: UserRole;

  @IsOptional()
  @IsIn(['true', 'false'], badParameter('is_approved must be true or false'))
  is_approved?: 'true' | 'false';

  @IsOptional()
  @Checks(
    IsString(badParameter(SEARCH_MESSAGE)),
    IsNotBlank(badParameter(SEARCH_MESSAGE)),
    MaxCharacters(MAX_SEARCH_CHARACTERS, badParameter(SEARCH_MESSAGE)),
    IsStorableText(badParameter(SEARCH_MESSAGE)),
  )
  search?: string;

  @IsOptional()
  @MasterCodeFilter('organization')
  organization?: string;

  @IsOptional()
  @MasterCodeFilter('job_type')
  job_type?: string;
}

/** Any letter case, kept lowercase; anything but a UUID is the same 404 as an unknown user. */
export class UserIdParams {
  @Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value))
  @ValidateBy({ name: 'isUserId', validator: { validate: isUuid } }, withCode('not_found', 'no such user'))
  userId!: string;
}

export class ChangeRoleBody {
  @Checks(IsDefined(badParameter('role is required')), IsIn(userRoles, badParameter('role must be admin or user')))
  role!: UserRole;
}
