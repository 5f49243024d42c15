import { Command } from 'commander';
import { registerAgents } from './commands/agents.command';
import { registerApiKeys } from './commands/apikeys.command';
import { registerBootstrap } from './commands/bootstrap.command';
import { registerCatalog } from './commands/catalog.command';
import { registerClients } from './commands/clients.command';
import { registerConfigCheck } from './commands/config-check.command';
import { registerConversations } from './commands/conversations.command';
import { registerKeys } from './commands/keys.command';
import { registerLibrary } from './commands/library.command';
import { registerLogs } from './commands/logs.command';
import { registerMasterData } from './commands/master-data.command';
import { registerMemory } from './commands/memory.command';
import { registerMigrate } from './commands/migrate.command';
import { registerRealm } from './commands/realm.command';
import { registerTenants } from './commands/tenants.command';
import { registerToolServers } from './commands/toolservers.command';
import { registerUsers } from './commands/users.command';

export function buildProgram(): Command {
  const program = new Command('platformctl')
    .description(
      'operate the federation agent platform: database, configuration, realm, clients, users, keys, gateway API keys, agent catalog, logs',
    )
    .showHelpAfterError()
    .exitOverride();
  registerMigrate(program);
  registerConfigCheck(program);
  registerKeys(program);
  registerClients(program);
  registerUsers(program);
  registerRealm(program);
  registerTenants(program);
  registerApiKeys(program);
  registerBootstrap(program);
  registerCatalog(program);
  registerAgents(program);
  registerToolServers(program);
  registerLibrary(program);
  registerConversations(program);
  registerMasterData(program);
  registerMemory(program);
  registerLogs(program);
  return program;
}
