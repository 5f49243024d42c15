import { ApiKeyEntity } from './keys/api-key.entity';

export const gatewayEntities = [ApiKeyEntity];
