import {
  type ToolServerItem,
  ToolServerNetwork,
  type ToolServersAdminService,
  ToolServersError,
  toolServerEntities,
  toolServerSecretsFor,
  toolServersAdminServiceFor,
} from '@fed/agent';
import { type Command } from 'commander';
import { withEntities } from './database';

function withToolServers<T>(work: (admin: ToolServersAdminService) => Promise<T>): Promise<T> {
  return withEntities(toolServerEntities, async (dataSource, config) =>
    work(
      toolServersAdminServiceFor(dataSource, toolServerSecretsFor(config), {
        network: ToolServerNetwork.of(config.toolServers.allowPrivateAddresses),
      }),
    ),
  );
}

function describe(item: ToolServerItem): string {
  return [
    item.name,
    item.enabled ? 'enabled' : 'disabled',
    item.url,
    `auth=${item.auth}`,
    `timeout=${item.timeoutMs / 1000}s`,
    `allowed=${item.allowedTools.join(',')}`,
    `tools=${item.agentTools.join(',') || 'none'}`,
    `updated=${item.updatedAt.toISOString()}`,
    ...(item.refreshError ? [`failing=${JSON.stringify(item.refreshError)}`] : []),
  ].join('  ');
}

interface AddOptions {
  url: string;
  authHeader?: string;
  authHeaderStdin?: boolean;
  allow: string;
  timeoutSeconds?: string;
}

interface UpdateOptions {
  url?: string;
  /** `--no-auth-header` sets it false. */
  authHeader?: string | false;
  authHeaderStdin?: boolean;
  allow?: string;
  timeoutSeconds?: string;
}

// A secret on the command line shows in `ps` and shell history: standard input keeps it out of both.
async function readAuthHeader(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** The header of `--auth-header-stdin` or `--auth-header` (which warns); undefined when neither is given. */
async function givenAuthHeader(options: {
  authHeader?: string;
  authHeaderStdin?: boolean;
}): Promise<string | undefined> {
  if (options.authHeaderStdin && options.authHeader !== undefined) {
    throw new ToolServersError('invalid_auth_header', 'give --auth-header or --auth-header-stdin, not both');
  }
  if (options.authHeader !== undefined) {
    process.stderr.write(
      'warning: --auth-header puts the secret on the command line (ps, shell history): use --auth-header-stdin\n',
    );
  }
  return options.authHeaderStdin ? readAuthHeader() : options.authHeader;
}

/** `platformctl toolservers add|list|remove|refresh`; agent-runtime reads the registry each turn: no cache to tell. */
export function registerToolServers(program: Command): void {
  const parent = program
    .command('toolservers')
    .description('external MCP tool servers (streamable HTTP) whose approved tools the agent may call');

  parent
    .command('add <name>')
    .description('approve a server: connects, lists its tools and records the allowed ones')
    .requiredOption('--url <url>', 'its streamable HTTP endpoint (http or https)')
    .requiredOption('--allow <tools>', 'the tools the agent may call, comma-separated, each by name (no `*`)')
    .option(
      '--auth-header-stdin',
      "read the Authorization header it requires (e.g. 'Bearer x') from standard input; stored encrypted, never shown",
    )
    .option('--auth-header <value>', 'the same on the command line, where `ps` and shell history show it: avoid')
    .option('--timeout-seconds <n>', 'longest a call may take, 1-300 (default 15)')
    .action(async (name: string, { authHeaderStdin, ...options }: AddOptions) => {
      const authHeader = await givenAuthHeader({ authHeader: options.authHeader, authHeaderStdin });
      const item = await withToolServers((admin) => admin.add({ name, ...options, authHeader }));
      process.stdout.write(`added tool server ${item.name}: ${item.agentTools.join(', ')}\n`);
    });

  parent
    .command('update <name>')
    .description('change what add took (not the name); asks the server for its tools with the new settings first')
    .option('--url <url>', 'its new streamable HTTP endpoint (another origin needs the auth header given again)')
    .option('--allow <tools>', 'the tools the agent may call from now on, comma-separated, each by name')
    .option('--auth-header-stdin', 'read a new Authorization header from standard input')
    .option('--auth-header <value>', 'the same on the command line, where `ps` and shell history show it: avoid')
    .option('--no-auth-header', 'send no Authorization header from now on')
    .option('--timeout-seconds <n>', 'longest a call may take, 1-300')
    .action(async (name: string, { authHeader, authHeaderStdin, ...options }: UpdateOptions) => {
      // --no-auth-header makes it false; defined after --auth-header, it leaves the default undefined.
      const removed = authHeader === false;
      const given = await givenAuthHeader({
        authHeader: typeof authHeader === 'string' ? authHeader : undefined,
        authHeaderStdin,
      });
      if (removed && given !== undefined) {
        throw new ToolServersError('invalid_auth_header', 'give a new auth header or --no-auth-header, not both');
      }
      const item = await withToolServers((admin) =>
        admin.update(name, { ...options, authHeader: removed ? null : given }),
      );
      process.stdout.write(`updated tool server ${item.name}: ${item.agentTools.join(', ') || 'no tools'}\n`);
    });

  parent
    .command('list')
    .description('list the approved servers (auth headers show as set or none)')
    .action(async () => {
      const items = await withToolServers((admin) => admin.list());
      if (items.length === 0) process.stdout.write('no tool servers\n');
      for (const item of items) process.stdout.write(`${describe(item)}\n`);
    });

  parent
    .command('refresh <name>')
    .description("list the server's tools again and record the allowed ones it offers now")
    .action(async (name: string) => {
      const { item, missing } = await withToolServers((admin) => admin.refresh(name));
      process.stdout.write(`refreshed tool server ${item.name}: ${item.agentTools.join(', ') || 'no tools'}\n`);
      if (missing.length > 0) {
        process.stderr.write(
          `not offered by the server any more (not available to the agent): ${missing.join(', ')}\n`,
        );
      }
    });

  parent
    .command('remove <name>')
    .description('remove a server: its tools are no longer offered from the next turn on')
    .action(async (name: string) => {
      await withToolServers((admin) => admin.remove(name));
      process.stdout.write(`removed tool server ${name}\n`);
    });
}
