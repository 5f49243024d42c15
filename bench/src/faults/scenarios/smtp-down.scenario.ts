import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { freePort } from '@fed/testing';
import { type FaultStack } from '../stack/fault-stack';
import { NO_FIGURES, type Scenario, waitUntil, withStack } from './scenario';

const run = promisify(execFile);
const DOWN_MS = 4000;

/** The users to approve, made as an operator makes them: `platformctl realm import` of pending users. */
async function importPendingUsers(stack: FaultStack, distRoot: string, count: number): Promise<Map<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fed-faults-realm-'));
  try {
    const file = path.join(dir, 'realm.json');
    const users = Array.from({ length: count }, (_, i) => ({
      email: `approval-${i + 1}@example.com`,
      username: `approval-${i + 1}`,
      displayName: `Approval ${i + 1}`,
      status: 'pending',
    }));
    await writeFile(file, JSON.stringify({ realm: 'federation', users }));
    await run(process.execPath, [path.join(distRoot, 'apps/platformctl/src/main.js'), 'realm', 'import', file], {
      env: {
        ...process.env,
        DATABASE_URL: stack.databaseUrl,
        REDIS_URL: stack.redisUrl,
        REDIS_KEY_PREFIX: stack.keyPrefix,
        LOG_LEVEL: 'warn',
      },
      timeout: 60_000,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const rows = await stack.query<{ id: string; email: string }>(
    "SELECT id, email FROM identity.users WHERE email LIKE 'approval-%@example.com'",
  );
  return new Map(rows.map((row) => [row.email, row.id]));
}

/** A loopback SMTP server that records each message's recipients. */
async function startSmtpServer(port: number) {
  const received: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData: (stream, session, callback) => {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received.push(...session.envelope.rcptTo.map((recipient) => recipient.address));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The SMTP server down while an admin approves users: every approval answers 200 at once (the e-mail
 * is queued, not sent), and every e-mail arrives, once, after the server is back (BullMQ retries).
 */
export const smtpDownScenario: Scenario = {
  name: 'smtp-down',
  title: 'SMTP server down during approvals',
  inQuickSubset: true,
  run: async (context) => {
    const startedAt = Date.now();
    const approvals = context.quick ? 3 : 20;
    const smtpPort = await freePort();
    return withStack(
      {
        distRoot: context.distRoot,
        chatInstances: 0,
        runtimes: 0,
        admin: { smtpUrl: `smtp://mailer:s3cret@127.0.0.1:${smtpPort}`, env: { NOTIFY_RETRY_DELAY_SECONDS: '1' } },
        redis: 'shared',
        postgres: 'shared',
        answers: { pieces: 1, pauseMs: 0 },
      },
      async (stack) => {
        const users = await importPendingUsers(stack, context.distRoot, approvals);
        const admin = stack.admin;
        if (!admin) throw new Error('the scenario needs admin-service');
        // An admin of the users' tenant (the default one the realm import put them in).
        const [tenant] = await stack.query<{ id: string; type: string; endpoint: string }>(
          "SELECT t.id, t.type, t.endpoint FROM identity.tenants t JOIN identity.users u ON u.tenant_id = t.id WHERE u.email LIKE 'approval-%' LIMIT 1",
        );
        // A user's management scope counts only while the user is an admin (the role rule).
        const token = await stack.token('openid users:manage', { tenant, realm_access: { roles: ['admin'] } });
        context.log(`  SMTP down; approving ${users.size} users`);
        const answers = await Promise.all(
          [...users.values()].map(async (userId) => {
            const before = Date.now();
            try {
              const res = await fetch(`${admin.url}/api/v1/admin/users/${userId}/approve`, {
                method: 'POST',
                headers: { authorization: `Bearer ${token}` },
                signal: AbortSignal.timeout(30_000),
              });
              await res.body?.cancel();
              return { status: res.status, ms: Date.now() - before };
            } catch {
              return { status: 0, ms: Date.now() - before };
            }
          }),
        );
        await sleep(DOWN_MS);
        const smtp = await startSmtpServer(smtpPort);
        try {
          context.log('  SMTP back');
          await waitUntil(() => new Set(smtp.received).size >= users.size, context.quick ? 30_000 : 90_000);
          // Time for a second delivery of the same message to show up.
          await sleep(2000);
          const approved = answers.filter((answer) => answer.status === 200).length;
          const unanswered = answers.filter((answer) => answer.status === 0).length;
          const delivered = new Set(smtp.received.filter((to) => users.has(to)));
          const duplicated = smtp.received.length - new Set(smtp.received).size;
          const lost = users.size - delivered.size;
          const problems: string[] = [];
          if (approved < users.size) {
            const statuses = answers.filter((answer) => answer.status !== 200).map((answer) => answer.status || 'none');
            problems.push(`${users.size - approved} approvals not answered 200 (${[...new Set(statuses)].join(', ')})`);
          }
          if (lost > 0) problems.push(`${lost} e-mails not delivered`);
          if (duplicated > 0) problems.push(`${duplicated} e-mails delivered twice`);
          return {
            name: smtpDownScenario.name,
            title: smtpDownScenario.title,
            row: {
              ...NO_FIGURES,
              turns: `${users.size} approvals`,
              completed: `${approved} approved, ${delivered.size} e-mails`,
              hanging: unanswered,
              lost,
              duplicated,
            },
            pass: problems.length === 0,
            notes: [
              ...problems,
              `SMTP down ${DOWN_MS / 1000} s; slowest approval ${Math.max(...answers.map((a) => a.ms))} ms`,
            ],
            seconds: Math.round((Date.now() - startedAt) / 1000),
          };
        } finally {
          await smtp.close();
        }
      },
    );
  },
};
