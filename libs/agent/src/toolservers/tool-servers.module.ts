import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { EXTERNAL_UI_SOURCE } from '@fed/conversations';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { toolServerEntities } from './tool-server.entity';
import { ToolServerRepository } from './tool-server.repository';
import { type ToolServerSecrets, toolServerSecretsFor } from './tool-server-secrets';
import { ToolServerNetwork } from './tool-server-network';
import { ToolServerUiSource } from './tool-server-ui-source';
import { ToolServersAdminController } from './tool-servers-admin.controller';
import { ToolServersAdminService } from './tool-servers-admin.service';

/** The sealing key of auth headers; undefined when the app has none (servers without a header still work). */
export const TOOL_SERVER_SECRETS = Symbol.for('fed.agent.ToolServerSecrets');

/** Approved MCP tool servers: repository and key for turn tools, and `EXTERNAL_UI_SOURCE` for chat-service. */
@Module({
  imports: [TypeOrmModule.forFeature(toolServerEntities)],
  providers: [
    {
      provide: ToolServerRepository,
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => new ToolServerRepository(dataSource),
    },
    {
      provide: TOOL_SERVER_SECRETS,
      inject: [SERVICE_CONFIG],
      useFactory: (config: ServiceConfig) => ({ secrets: toolServerSecretsFor(config) }),
    },
    {
      provide: EXTERNAL_UI_SOURCE,
      inject: [ToolServerRepository, TOOL_SERVER_SECRETS, SERVICE_CONFIG],
      useFactory: (repository: ToolServerRepository, key: { secrets?: ToolServerSecrets }, config: ServiceConfig) =>
        new ToolServerUiSource(
          repository,
          key.secrets,
          undefined,
          ToolServerNetwork.of(config.toolServers.allowPrivateAddresses),
        ),
    },
  ],
  exports: [ToolServerRepository, TOOL_SERVER_SECRETS, EXTERNAL_UI_SOURCE],
})
export class ToolServersModule {}

/**
 * `/api/v1/admin/tool-servers` (admin-service): the service platformctl uses, under this app's address rule
 * (TOOLSERVER_ALLOW_PRIVATE_ADDRESSES) and key (TOOLSERVER_SECRET_KEY).
 */
@Module({
  imports: [ToolServersModule],
  controllers: [ToolServersAdminController],
  providers: [
    {
      provide: ToolServersAdminService,
      inject: [ToolServerRepository, TOOL_SERVER_SECRETS, SERVICE_CONFIG],
      useFactory: (repository: ToolServerRepository, key: { secrets?: ToolServerSecrets }, config: ServiceConfig) =>
        new ToolServersAdminService(repository, key.secrets, {
          network: ToolServerNetwork.of(config.toolServers.allowPrivateAddresses),
        }),
    },
  ],
})
export class ToolServersAdminModule {}

/** The administrator's service on a data source, as platformctl and the tests build it. */
export function toolServersAdminServiceFor(
  dataSource: DataSource,
  secrets: ToolServerSecrets | undefined,
  options: { network?: ToolServerNetwork } = {},
): ToolServersAdminService {
  return new ToolServersAdminService(new ToolServerRepository(dataSource), secrets, options);
}
