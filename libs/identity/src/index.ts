export * from './clients/client.entity';
export * from './clients/client.repository';
export * from './clients/client-registration';
export * from './clients/clients.errors';
export * from './clients/clients.service';
export * from './signing-keys/key-encryption';
export * from './signing-keys/key-encryption-key.file';
export * from './signing-keys/signing-key.entity';
export * from './signing-keys/signing-key.repository';
export * from './signing-keys/signing-keys.module';
export * from './signing-keys/signing-keys.service';

import { ClientEntity } from './clients/client.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';

/** Every entity of the identity context (for data sources outside Nest, such as platformctl). */
export const identityEntities = [ClientEntity, SigningKeyEntity];
