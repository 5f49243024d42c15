import { ClientEntity } from './clients/client.entity';
import { ConsentEntity } from './consents/consent.entity';
import { JobTypeEntity, OrganizationEntity } from './master-data/master-data.entity';
import { OidcArtifactEntity } from './oidc/artifacts/oidc-artifact.entity';
import { RefreshTokenEntity } from './oidc/refresh-tokens/refresh-token.entity';
import { TokenFamilyEntity } from './oidc/refresh-tokens/token-family.entity';
import { RevokedAccessTokenEntity } from './oidc/revocation/revoked-access-token.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { UserEntity } from './users/user.entity';

/** Every entity of the identity context: for Nest modules that touch them all, and data sources outside Nest (platformctl). */
export const identityEntities = [
  ClientEntity,
  ConsentEntity,
  JobTypeEntity,
  OidcArtifactEntity,
  OrganizationEntity,
  RefreshTokenEntity,
  RevokedAccessTokenEntity,
  SigningKeyEntity,
  TenantEntity,
  TokenFamilyEntity,
  UserEntity,
];
