export { GatewayModule } from './gateway.module';
export {
  ApiKeysService,
  type ApiKeyPage,
  type ApiKeySettings,
  type ApiKeyUpdate,
  type ApiKeyView,
  type IssuedApiKey,
  apiKeyStateOf,
  apiKeysServiceFor,
  hashApiKey,
} from './keys/api-keys.service';
export { ApiKeysError, type ApiKeysErrorCode } from './keys/api-keys.errors';
export { type ApiKeyFilter, type ApiKeyState } from './keys/api-key.repository';
export { API_KEYS_AREA, type ApiKeyChangeNotifier, publishApiKeyChange } from './keys/api-key-changes';
export { ApiKeysAdminModule } from './keys/api-keys-admin.module';
export { routingSchema } from './routing/routing.schema';
export { parseRoutingFile, readRoutingFile } from './routing/routing-file';
export { RoutingError } from './routing/routing-table';
export type * from './routing/routing.types';

export { gatewayEntities } from './gateway.entities';
