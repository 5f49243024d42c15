import { type Command, InvalidArgumentError } from 'commander';
import { type UserRole, type UsersService, userRoles, usersServiceFor } from '@fed/identity';
import { withIdentity } from './database';
import { AnnouncedInvalidations, UNTOLD_INVALIDATION } from './signals';

function withUsers<T>(work: (users: UsersService, invalidations: AnnouncedInvalidations) => Promise<T>): Promise<T> {
  return withIdentity((dataSource, config) => {
    const invalidations = new AnnouncedInvalidations(config);
    return work(usersServiceFor(dataSource, config, invalidations), invalidations);
  });
}

function parseRole(value: string): UserRole {
  if (!(userRoles as readonly string[]).includes(value)) throw new InvalidArgumentError('expected admin or user');
  return value as UserRole;
}

function parseOnOff(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('expected on or off');
  return value === 'on';
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
      async (options: {
        email: string;
        name: string;
        username?: string;
        role?: UserRole;
        developer?: boolean;
        pending?: boolean;
        tenant?: string;
        passwordStdin?: boolean;
      }) => {
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
      },
    );

  users
    .command('list')
    .description('list users')
    .action(async () => {
      const rows = await withUsers((service) => service.list());
      if (rows.length === 0) process.stdout.write('no users\n');
      for (const u of rows) {
        process.stdout.write(
          `${u.id}  ${u.email}  ${u.role}${u.developer ? '+developer' : ''}${u.platformOperator ? '+operator' : ''}  ${u.status}  tenant=${u.tenant?.name ?? u.tenantId}\n`,
        );
      }
    });

  users
    .command('set-role <login> <role>')
    .description('change the role of an approved user (admin or user); lowering it ends their sessions')
    .action(async (login: string, role: string) => {
      const parsed = parseRole(role);
      const { result, told } = await withUsers(async (service, invalidations) => ({
        result: await service.setRole((await service.findByLogin(login)).id, parsed),
        told: invalidations.told,
      }));
      const ended = result.sessionsInvalidated ? ` (existing sessions ended${told ? '' : UNTOLD_INVALIDATION})` : '';
      process.stdout.write(`role of ${login}: ${parsed}${ended}\n`);
    });

  users
    .command('set-operator')
    .argument('<login>', 'e-mail address or username')
    .argument('<on|off>', 'on or off', parseOnOff)
    .description(
      'make an admin a platform operator (an account of the platform itself: it may then hold platform:manage, ' +
        'to manage clients, keys, tool servers, tenants and signing keys), or no longer; off ends their sessions',
    )
    .action(async (login: string, operator: boolean) => {
      const { result, told } = await withUsers(async (service, invalidations) => ({
        result: await service.setPlatformOperator((await service.findByLogin(login)).id, operator),
        told: invalidations.told,
      }));
      const ended = result.sessionsInvalidated ? ` (existing sessions ended${told ? '' : UNTOLD_INVALIDATION})` : '';
      process.stdout.write(`platform operator ${login}: ${operator ? 'on' : 'off'}${ended}\n`);
    });

  users
    .command('approve <login>')
    .description('approve a pending user')
    .action(async (login: string) => {
      await withUsers(async (service) => service.approve((await service.findByLogin(login)).id));
      process.stdout.write(`${login}: approved\n`);
    });

  users
    .command('reject <login>')
    .description('withdraw the approval of a user (back to pending); their sessions end')
    .action(async (login: string) => {
      const told = await withUsers(async (service, invalidations) => {
        await service.reject((await service.findByLogin(login)).id);
        return invalidations.told;
      });
      process.stdout.write(`${login}: pending (existing sessions ended${told ? '' : UNTOLD_INVALIDATION})\n`);
    });
}
