// The public surface: modules, services and their factories, signature types and errors; internals stay inside.

export { catalogEntities } from './catalog/catalog.entities';
export {
  CatalogAdminModule,
  CatalogModule,
  CatalogStoreModule,
  catalogAdminServiceFor,
} from './catalog/catalog.module';
export { AgentModule } from './runtime/agent.module';
export {
  CatalogAdminService,
  type CatalogFields,
  type CatalogItem,
  type CatalogKind,
  type CatalogPage,
} from './catalog/catalog-admin.service';
export { type PersonaList, type PlaybookList, type SkillList } from './catalog/catalog.dto';
export { CatalogError, type CatalogErrorCode } from './catalog/catalog.errors';
export { DESCRIPTION_MAX, INSTRUCTIONS_MAX, NAME_MAX } from './catalog/catalog.rules';
export { CatalogService, type CatalogSelection, type ResolvedCatalog } from './catalog/catalog.service';
export { seedCatalog } from './catalog/catalog.seed';
export {
  LibraryAdminModule,
  LibraryModule,
  LibraryStoreModule,
  libraryAdminServiceFor,
} from './library/library.module';
export { type LibraryItemEntity, type LibraryItemKind, libraryEntities } from './library/library.entity';
export { LibraryService } from './library/library.service';
export { type LibrarySweepResult, LibrarySweepJob } from './library/library-sweep.job';
export { LibraryError, type LibraryErrorCode } from './library/library.errors';
export {
  LibraryAdminService,
  type LibraryFileFields,
  type LibraryPage,
  type LibraryTemplateFields,
  LIBRARY_PREFIX,
  libraryBlobKey,
} from './library/library-admin.service';
export { type LibraryItem, type LibraryList } from './library/library.dto';
export { type RecordedTool, toolServerEntities } from './toolservers/tool-server.entity';
export { ToolServersError, type ToolServersErrorCode } from './toolservers/tool-servers.errors';
export {
  type AddToolServer,
  type RefreshReport,
  type ToolServerItem,
  type ToolServerPage,
  type ToolServerState,
  type ToolServerTool,
  type ToolServerUpdate,
  ToolServersAdminService,
} from './toolservers/tool-servers-admin.service';
export { ToolServerSecrets, toolServerSecretsFor } from './toolservers/tool-server-secrets';
export { ToolServerNetwork } from './toolservers/tool-server-network';
export { ExternalUiRefusedError, ToolServerUiSource } from './toolservers/tool-server-ui-source';
export {
  TOOL_SERVER_SECRETS,
  ToolServersAdminModule,
  ToolServersModule,
  toolServersAdminServiceFor,
} from './toolservers/tool-servers.module';
export { type FileFormat, formatOf } from './runtime/attachments/file-formats';
export {
  type MarketplaceAgentEntity,
  type AgentModelConfig,
  marketplaceAgentEntities,
} from './agents/marketplace-agent.entity';
export {
  MarketplaceAgentsAdminModule,
  MarketplaceAgentsModule,
  marketplaceAgentsAdminServiceFor,
} from './agents/marketplace-agents.module';
export { type AgentFields, MarketplaceAgentsAdminService } from './agents/marketplace-agents-admin.service';
export { AgentsError, type AgentsErrorCode } from './agents/agents.errors';
export { MAX_OUTPUT_TOKENS_MAX, MODEL_NAME_MAX, TEMPERATURE_MAX } from './agents/agent.rules';
