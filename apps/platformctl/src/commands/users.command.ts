import { type Command, InvalidArgumentError } from 'commander';
import { type UserRole, UserRepository, UsersService, userRoles } from '@fed/identity';
import { reportingRefusals, withIdentity } from './database';

function withUsers<T>(work: (users: UsersService) => Promise<T>): Promise<T> {
  return withIdentity((dataSource, config) =>
    work(new UsersService(new UserRepository(dataSource), { defaultTenantEndpoint: config.http.publicUrl })),
  );
}

function parseRole(value: string): UserRole {
  if (!(userRoles as readonly string[]).includes(value)) throw new InvalidArgumentError('expected admin or user');
  return value as UserRole;
}

// A password on the command line would show in `ps` and shell history: read it from standard input.
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export function registerUsers(program: Command): void {
  const users = program.command('users').description('users of the platform');

  users
    .command('create')
    .description(
      'create a user (approved unless --pending); without --password-stdin a password is generated and shown once',
    )
    .requiredOption('--email <email>', 'e-mail address (also the login)')
    .requiredOption('--name <name>', 'display name')
    .option('--username <username>', 'login name besides the e-mail address')
    .option('--role <role>', 'admin or user (default user)', parseRole)
    .option('--developer', 'realm role developer: may use Unpublished clients')
    .option('--pending', 'create in status pending (awaiting approval)')
    .option('--tenant <name>', 'tenant (default: the default saas tenant)')
    .option('--password-stdin', 'read the password from standard input')
    .action(
      (options: {
        email: string;
        name: string;
        username?: string;
        role?: UserRole;
        developer?: boolean;
        pending?: boolean;
        tenant?: string;
        passwordStdin?: boolean;
      }) =>
        reportingRefusals(async () => {
          const password = options.passwordStdin ? await readPassword() : undefined;
          const { user, generatedPassword } = await withUsers((service) =>
            service.create({
              email: options.email,
              username: options.username,
              displayName: options.name,
              password,
              role: options.role,
              developer: options.developer,
              status: options.pending ? 'pending' : 'approved',
              tenantName: options.tenant,
            }),
          );
          process.stdout.write(`user ${user.id} ${user.email} (${user.role}, ${user.status})\n`);
          if (generatedPassword) process.stdout.write(`password: ${generatedPassword}\n(shown once; store it now)\n`);
        }),
    );

  users
    .command('list')
    .description('list users')
    .action(async () => {
      const rows = await withUsers((service) => service.list());
      if (rows.length === 0) process.stdout.write('no users\n');
      for (const u of rows) {
        process.stdout.write(
          `${u.id}  ${u.email}  ${u.role}${u.developer ? '+developer' : ''}  ${u.status}  tenant=${u.tenant?.name ?? u.tenantId}\n`,
        );
      }
    });

  users
    .command('set-role <login> <role>')
    .description('change the role of an approved user (admin or user); lowering it ends their sessions')
    .action((login: string, role: string) =>
      reportingRefusals(async () => {
        const parsed = parseRole(role);
        const result = await withUsers(async (service) =>
          service.setRole((await service.findByLogin(login)).id, parsed),
        );
        process.stdout.write(
          `role of ${login}: ${parsed}${result.sessionsInvalidated ? ' (existing sessions ended)' : ''}\n`,
        );
      }),
    );

  users
    .command('approve <login>')
    .description('approve a pending user')
    .action((login: string) =>
      reportingRefusals(async () => {
        await withUsers(async (service) => service.approve((await service.findByLogin(login)).id));
        process.stdout.write(`${login}: approved\n`);
      }),
    );
}
