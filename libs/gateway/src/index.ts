// The public surface: modules, services (and the factories that build them outside Nest), the types
// their signatures use, and the errors they throw. Entities, repositories and helpers stay inside.

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

// The data source of every process that touches the gateway schema needs the entity list.
export { gatewayEntities } from './gateway.entities';
