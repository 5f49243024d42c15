import { ClientEntity } from './clients/client.entity';
import { IdpUserTokensEntity } from './idp/idp-user-tokens.entity';
import { TenantIdpDomainEntity, TenantIdpEntity } from './idp/tenant-idp.entity';
import { ConsentEntity } from './consents/consent.entity';
import { JobTypeEntity, OrganizationEntity } from './master-data/master-data.entity';
import { OidcArtifactEntity } from './oidc/artifacts/oidc-artifact.entity';
import { RefreshTokenEntity } from './oidc/refresh-tokens/refresh-token.entity';
import { TokenFamilyEntity } from './oidc/refresh-tokens/token-family.entity';
import { RevokedAccessTokenEntity } from './oidc/revocation/revoked-access-token.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { AccountTokenEntity } from './signup/account-token.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { UserEntity } from './users/user.entity';

/** Every entity of the identity context: for Nest modules that touch them all, and data sources outside Nest (platformctl). */
export const identityEntities = [
  AccountTokenEntity,
  ClientEntity,
  ConsentEntity,
  IdpUserTokensEntity,
  JobTypeEntity,
  OidcArtifactEntity,
  OrganizationEntity,
  RefreshTokenEntity,
  RevokedAccessTokenEntity,
  SigningKeyEntity,
  TenantEntity,
  TenantIdpDomainEntity,
  TenantIdpEntity,
  TokenFamilyEntity,
  UserEntity,
];
