import { ClientEntity } from './clients/client.entity';
import { TenantIdpDomainEntity, TenantIdpEntity } from './idp/tenant-idp.entity';
import { JobTypeEntity, OrganizationEntity } from './master-data/master-data.entity';
import { AccountTokenEntity } from './notifications/account-token.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { UserEntity } from './users/user.entity';

/** For Nest modules and data sources outside Nest (platformctl); the sign-in tables are `signInEntities`. */
export const identityEntities = [
  AccountTokenEntity,
  ClientEntity,
  JobTypeEntity,
  OrganizationEntity,
  SigningKeyEntity,
  TenantEntity,
  TenantIdpDomainEntity,
  TenantIdpEntity,
  UserEntity,
];
