import { isPrintableLine, isStorableText } from '@fed/contracts';
import { type Labelled } from '../users/user.entity';

/** The user fields (and userinfo `idp` members) an upstream claim fills. */
export const mappedFields = [
  'name',
  'preferred_username',
  'email',
  'email_verified',
  'organization',
  'job',
  'bio',
] as const;
export type MappedField = (typeof mappedFields)[number];
export type ClaimMapping = Record<MappedField, string>;

/** The standard OpenID Connect names; organization, job and bio have none, so they are ours. */
export const defaultClaimMapping: ClaimMapping = {
  name: 'name',
  preferred_username: 'preferred_username',
  email: 'email',
  email_verified: 'email_verified',
  organization: 'organization',
  job: 'job',
  bio: 'bio',
};

/** What the upstream says of a user, through the tenant's mapping; absent or unusable values are left out. */
export interface UpstreamProfile {
  subject: string;
  name?: string;
  preferredUsername?: string;
  email?: string;
  emailVerified: boolean;
  organization?: Labelled;
  job?: Labelled;
  bio?: string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/** A top-level member, else a dotted path (Keycloak writes `org.name` as `{org: {name}}`). */
function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function line(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 && trimmed.length <= max && isPrintableLine(trimmed) ? trimmed : undefined;
}

/** An upstream `{id, label}` as it is, or a string, which is both until the master data names it (see TenantSignIn). */
function labelled(value: unknown): Labelled | undefined {
  if (typeof value === 'object' && value !== null) {
    const { id, label } = value as Record<string, unknown>;
    const code = line(id, 100);
    const text = line(label, 200);
    return code && text ? { id: code, label: text } : undefined;
  }
  const code = line(value, 100);
  return code ? { id: code, label: code } : undefined;
}

export function profileFrom(
  subject: string,
  claims: Readonly<Record<string, unknown>>,
  mapping: ClaimMapping,
): UpstreamProfile {
  const email = line(claimAt(claims, mapping.email), 254)?.toLowerCase();
  const verified = claimAt(claims, mapping.email_verified);
  const bio = claimAt(claims, mapping.bio);
  const profile: UpstreamProfile = {
    subject,
    name: line(claimAt(claims, mapping.name), 200),
    preferredUsername: line(claimAt(claims, mapping.preferred_username), 254),
    email: email && EMAIL.test(email) ? email : undefined,
    // Some providers send the boolean as a string.
    emailVerified: verified === true || verified === 'true',
    organization: labelled(claimAt(claims, mapping.organization)),
    job: labelled(claimAt(claims, mapping.job)),
    bio: typeof bio === 'string' && bio.length <= 2000 && isStorableText(bio) ? bio : undefined,
  };
  return Object.fromEntries(Object.entries(profile).filter(([, value]) => value !== undefined)) as UpstreamProfile;
}

/** Userinfo's `idp` object (spec document 1) of a profile fresh from the upstream. */
export function idpUserInfo(profile: UpstreamProfile) {
  return {
    sub: profile.subject,
    ...(profile.name !== undefined ? { name: profile.name } : {}),
    ...(profile.preferredUsername !== undefined ? { preferred_username: profile.preferredUsername } : {}),
    ...(profile.email !== undefined ? { email: profile.email } : {}),
    email_verified: profile.emailVerified,
    ...(profile.organization ? { organization: profile.organization } : {}),
    ...(profile.job ? { job: profile.job } : {}),
    ...(profile.bio !== undefined ? { bio: profile.bio } : {}),
  };
}
