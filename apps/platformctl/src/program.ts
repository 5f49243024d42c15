import { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * Each top-level command and the module that registers it, loaded only when that command runs: a
 * command's module loads its libraries (TypeORM, Nest modules, BullMQ), and loading all of them made
 * every run pay for every command. Help without a command, or an unknown one, loads them all.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- required when its command runs (above) */
const commands: Record<string, () => Register> = {
  migrate: () => (require('./commands/migrate.command') as typeof import('./commands/migrate.command')).registerMigrate,
  config: () =>
    (require('./commands/config-check.command') as typeof import('./commands/config-check.command'))
      .registerConfigCheck,
  keys: () => (require('./commands/keys.command') as typeof import('./commands/keys.command')).registerKeys,
  clients: () => (require('./commands/clients.command') as typeof import('./commands/clients.command')).registerClients,
  users: () => (require('./commands/users.command') as typeof import('./commands/users.command')).registerUsers,
  realm: () => (require('./commands/realm.command') as typeof import('./commands/realm.command')).registerRealm,
  tenants: () => (require('./commands/tenants.command') as typeof import('./commands/tenants.command')).registerTenants,
  apikeys: () => (require('./commands/apikeys.command') as typeof import('./commands/apikeys.command')).registerApiKeys,
  bootstrap: () =>
    (require('./commands/bootstrap.command') as typeof import('./commands/bootstrap.command')).registerBootstrap,
  personas: () =>
    (require('./commands/catalog.command') as typeof import('./commands/catalog.command')).registerCatalog,
  playbooks: () =>
    (require('./commands/catalog.command') as typeof import('./commands/catalog.command')).registerCatalog,
  skills: () => (require('./commands/catalog.command') as typeof import('./commands/catalog.command')).registerCatalog,
  agents: () => (require('./commands/agents.command') as typeof import('./commands/agents.command')).registerAgents,
  toolservers: () =>
    (require('./commands/toolservers.command') as typeof import('./commands/toolservers.command')).registerToolServers,
  library: () => (require('./commands/library.command') as typeof import('./commands/library.command')).registerLibrary,
  conversations: () =>
    (require('./commands/conversations.command') as typeof import('./commands/conversations.command'))
      .registerConversations,
  organizations: () =>
    (require('./commands/master-data.command') as typeof import('./commands/master-data.command')).registerMasterData,
  'job-types': () =>
    (require('./commands/master-data.command') as typeof import('./commands/master-data.command')).registerMasterData,
  memory: () => (require('./commands/memory.command') as typeof import('./commands/memory.command')).registerMemory,
  logs: () => (require('./commands/logs.command') as typeof import('./commands/logs.command')).registerLogs,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** The names `buildProgram` knows without loading a command's module (the order of `platformctl --help`). */
export const commandNames = Object.keys(commands);

/**
 * The program for `argv`: with the command it names registered (a module that registers several, such as
 * the catalog's, registers them all), or every command when it names none that is known.
 */
export function buildProgram(argv: readonly string[] = process.argv): Command {
  const program = new Command('platformctl')
    .description(
      'operate the federation agent platform: database, configuration, realm, clients, users, keys, gateway API keys, agent catalog, logs',
    )
    .showHelpAfterError()
    .exitOverride();
  const named = argv[2];
  const loaders = named !== undefined && Object.hasOwn(commands, named) ? [commands[named]!] : Object.values(commands);
  const registered = new Set<Register>();
  for (const load of loaders) {
    const register = load();
    if (registered.has(register)) continue;
    registered.add(register);
    register(program);
  }
  return program;
}
