import type { MigrationInterface } from 'typeorm';
import { CreateContextSchemas1795320075713 } from './1795320075713-create-context-schemas';
import { CreateSigningKeys1795323224555 } from './1795323224555-create-signing-keys';
import { CreateClients1795323740074 } from './1795323740074-create-clients';
import { CreateTenantsAndUsers1795324154797 } from './1795324154797-create-tenants-and-users';
import { AddClientTenant1795325009413 } from './1795325009413-add-client-tenant';
import { CreateOidcSessions1795330000000 } from './1795330000000-create-oidc-sessions';
import { CreateGatewayKeysAndLogs1795340000000 } from './1795340000000-create-gateway-keys-and-logs';
import { CreateConversationsAndCatalog1795350000000 } from './1795350000000-create-conversations-and-catalog';
import { AddTokenFamilies1795360000000 } from './1795360000000-add-token-families';
import { AddPkcePolicyAndKeyRevocation1795370000000 } from './1795370000000-add-pkce-policy-and-key-revocation';
import { CreateFiles1795380000000 } from './1795380000000-create-files';
import { CreateLibrary1795381000000 } from './1795381000000-create-library';
import { CreateDeliverables1795382000000 } from './1795382000000-create-deliverables';
import { CreateUiResources1795383000000 } from './1795383000000-create-ui-resources';
import { CreateToolServers1795384000000 } from './1795384000000-create-tool-servers';
import { CreateMasterData1795390000000 } from './1795390000000-create-master-data';
import { CreateAuditLogs1795391000000 } from './1795391000000-create-audit-logs';
import { CreateLlmLogs1795392000000 } from './1795392000000-create-llm-logs';
import { CreateAccessLogs1795393000000 } from './1795393000000-create-access-logs';
import { CreateGuardrailAlerts1795394000000 } from './1795394000000-create-guardrail-alerts';
import { ExtendMemoryEntries1795395000000 } from './1795395000000-extend-memory-entries';
import { AddPostLogoutRedirectUris1795396000000 } from './1795396000000-add-post-logout-redirect-uris';
import { CreateAccountTokens1795397000000 } from './1795397000000-create-account-tokens';
import { CreateTenantIdentityProviders1795398000000 } from './1795398000000-create-tenant-identity-providers';
import { AddMessageError1795399000000 } from './1795399000000-add-message-error';
import { AddMessageSearch1795400000000 } from './1795400000000-add-message-search';
import { CreateMarketplaceAgents1795401000000 } from './1795401000000-create-marketplace-agents';
import { AddConversationRetentionIndex1795402000000 } from './1795402000000-add-conversation-retention-index';
import { AddLogTenants1795403000000 } from './1795403000000-add-log-tenants';
import { ScopeMasterDataByTenant1795404000000 } from './1795404000000-scope-master-data-by-tenant';
import { IndexMarketplaceListsByAccount1795404100000 } from './1795404100000-index-marketplace-lists-by-account';
import { RefreshTokenAuthTimeToTheMillisecond1795405000000 } from './1795405000000-refresh-token-auth-time-to-the-millisecond';
import { AllowOperatorClients1795406000000 } from './1795406000000-allow-operator-clients';
import { AddRefreshTokenResource1795407000000 } from './1795407000000-add-refresh-token-resource';
import { AddPublicClients1795407100000 } from './1795407100000-add-public-clients';
import { AddPlatformOperators1795408000000 } from './1795408000000-add-platform-operators';
import { AddGatewayUsageRollup1795408200000 } from './1795408200000-add-gateway-usage-rollup';
import { AddGatewayUsageByModelAndCaller1795408200001 } from './1795408200001-add-gateway-usage-by-model-and-caller';
import { AddToolServerRefreshState1795408460000 } from './1795408460000-add-tool-server-refresh-state';
import { IndexGatewayUsageFilters1795408500000 } from './1795408500000-index-gateway-usage-filters';

export type MigrationClass = new () => MigrationInterface;

// Every migration, oldest first. Listed by hand (no glob): the same code runs from dist/ and from
// Jest on .ts sources. A new migration is appended here; migrations.spec.ts fails if one is missing.
export const migrations: readonly MigrationClass[] = [
  CreateContextSchemas1795320075713,
  CreateSigningKeys1795323224555,
  CreateClients1795323740074,
  CreateTenantsAndUsers1795324154797,
  AddClientTenant1795325009413,
  CreateOidcSessions1795330000000,
  CreateGatewayKeysAndLogs1795340000000,
  CreateConversationsAndCatalog1795350000000,
  AddTokenFamilies1795360000000,
  AddPkcePolicyAndKeyRevocation1795370000000,
  CreateFiles1795380000000,
  CreateLibrary1795381000000,
  CreateDeliverables1795382000000,
  CreateUiResources1795383000000,
  CreateToolServers1795384000000,
  CreateMasterData1795390000000,
  CreateAuditLogs1795391000000,
  CreateLlmLogs1795392000000,
  CreateAccessLogs1795393000000,
  CreateGuardrailAlerts1795394000000,
  ExtendMemoryEntries1795395000000,
  AddPostLogoutRedirectUris1795396000000,
  CreateAccountTokens1795397000000,
  CreateTenantIdentityProviders1795398000000,
  AddMessageError1795399000000,
  AddMessageSearch1795400000000,
  CreateMarketplaceAgents1795401000000,
  AddConversationRetentionIndex1795402000000,
  AddLogTenants1795403000000,
  ScopeMasterDataByTenant1795404000000,
  IndexMarketplaceListsByAccount1795404100000,
  RefreshTokenAuthTimeToTheMillisecond1795405000000,
  AllowOperatorClients1795406000000,
  AddRefreshTokenResource1795407000000,
  AddPublicClients1795407100000,
  AddPlatformOperators1795408000000,
  AddGatewayUsageRollup1795408200000,
  AddGatewayUsageByModelAndCaller1795408200001,
  AddToolServerRefreshState1795408460000,
  IndexGatewayUsageFilters1795408500000,
];
