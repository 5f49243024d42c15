import { ClientEntity } from './clients/client.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { UserEntity } from './users/user.entity';

/** Every entity of the identity context: for Nest modules that touch them all, and data sources outside Nest (platformctl). */
export const identityEntities = [ClientEntity, SigningKeyEntity, TenantEntity, UserEntity];
