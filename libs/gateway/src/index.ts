export { GatewayModule } from './gateway.module';
export {
  ApiKeysService,
  type ApiKeySettings,
  type ApiKeyView,
  type IssuedApiKey,
  apiKeysServiceFor,
  hashApiKey,
} from './keys/api-keys.service';
export { ApiKeysError, type ApiKeysErrorCode } from './keys/api-keys.errors';
export { routingSchema } from './routing/routing.schema';
export { parseRoutingFile, readRoutingFile } from './routing/routing-file';
export { RoutingError } from './routing/routing-table';
export type * from './routing/routing.types';

export { gatewayEntities } from './gateway.entities';
