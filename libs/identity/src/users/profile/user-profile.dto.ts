import { isPrintableLine, isStorableText } from '@fed/contracts';
import { Checks, IsNotBlank, MaxCharacters, RefuseUnknownFields, withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, ValidateBy, ValidateIf } from 'class-validator';
import { type TenantType } from '../../tenants/tenant.entity';
import { type AdminUserResponse } from '../admin/admin-users.dto';
import { type AdminUserFields, toAdminUserResponse } from '../admin/admin-users.mapper';

/** The admin User object (omission rules included) plus the display name and tenant. */
export interface UserProfileResponse extends AdminUserResponse {
  displayName: string;
  tenant: { id: string; type: TenantType; name: string };
}

export interface ProfileRecord extends AdminUserFields {
  displayName: string;
  tenant: { id: string; type: TenantType; name: string };
}

export function toUserProfileResponse(profile: ProfileRecord): UserProfileResponse {
  return {
    ...toAdminUserResponse(profile),
    displayName: profile.displayName,
    tenant: { id: profile.tenant.id, type: profile.tenant.type, name: profile.tenant.name },
  };
}

// The limits of every user record (validateUserFields, validateBio), counted in code points here.
export const MAX_DISPLAY_NAME_CHARACTERS = 200;
export const MAX_BIO_CHARACTERS = 2000;

// Control characters other than line feed and tab (a bio is several lines; a name is one).
const BIO_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

export function isBioText(value: unknown): boolean {
  return typeof value === 'string' && isStorableText(value) && !BIO_CONTROL.test(value);
}

const refusal = (message: string) => withCode('invalid_parameter', message);
const trimmed = Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Other fields are refused by name: silently dropping one would let a client believe it changed. */
@RefuseUnknownFields()
export class UpdateProfileBody {
  /** Trimmed; one line. `null` is refused: a user always has a name. */
  @ValidateIf((_body: unknown, value: unknown) => value !== undefined)
  @trimmed
  @Checks(
    IsString(refusal('displayName must be a string')),
    IsNotBlank(refusal('displayName must not be empty')),
    MaxCharacters(
      MAX_DISPLAY_NAME_CHARACTERS,
      refusal(`displayName must be at most ${MAX_DISPLAY_NAME_CHARACTERS} characters`),
    ),
    ValidateBy(
      {
        name: 'isPrintableLine',
        validator: { validate: (value: unknown) => typeof value === 'string' && isPrintableLine(value) },
      },
      refusal('displayName must be one line without control characters, NUL or unpaired surrogates'),
    ),
  )
  displayName?: string;

  /** Kept as written (line feeds and tabs too); `null`, "" or only white space clears it. */
  @IsOptional()
  @Checks(
    IsString(refusal('bio must be a string or null')),
    MaxCharacters(MAX_BIO_CHARACTERS, refusal(`bio must be at most ${MAX_BIO_CHARACTERS} characters`)),
    ValidateBy(
      { name: 'isBioText', validator: { validate: isBioText } },
      refusal('bio must not contain NUL, unpaired surrogates or control characters other than line feed and tab'),
    ),
  )
  bio?: string | null;
}
