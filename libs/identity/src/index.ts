export * from './clients/client.entity';
export * from './clients/client.repository';
export * from './clients/client-registration';
export * from './clients/clients.errors';
export * from './clients/clients.service';
export * from './signing-keys/key-encryption';
export * from './tenants/tenant.entity';
export * from './users/user.entity';
export * from './users/user.repository';
export * from './users/users.errors';
export * from './users/users.service';
export * from './signing-keys/key-encryption-key.file';
export * from './signing-keys/signing-key.entity';
export * from './signing-keys/signing-key.repository';
export * from './signing-keys/signing-keys.module';
export * from './signing-keys/signing-keys.service';

import { ClientEntity } from './clients/client.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { UserEntity } from './users/user.entity';

/** Every entity of the identity context (for data sources outside Nest, such as platformctl). */
export const identityEntities = [ClientEntity, SigningKeyEntity, TenantEntity, UserEntity];
