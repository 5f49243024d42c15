import 'reflect-metadata';
import { type UsersService } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { createHash, randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { AccountFormClient, visibleText } from '../testing/account-forms';
import { bootAuthService, registryOf } from '../testing/boot-auth-service';
import { type SmtpMailbox, accountLinkIn, startSmtpMailbox, subjectOf } from '../testing/smtp-mailbox';

const STRONG = 'violet tractor pebble harbor';
const SIGN_UP = '/federation/auth/v1/account/signup';
const RESEND = '/federation/auth/v1/account/resend';
const FORGOT = '/federation/auth/v1/account/password/forgot';

describe('sign-up, e-mail confirmation and password reset over HTTP (real SMTP and PostgreSQL)', () => {
  let database: TestDatabase;
  let mailbox: SmtpMailbox;
  let service: RunningService;
  let dataSource: DataSource;
  let users: UsersService;

  beforeAll(async () => {
    database = await createTestDatabase();
    mailbox = await startSmtpMailbox();
    service = await bootAuthService({
      databaseUrl: database.url,
      env: { SMTP_URL: mailbox.url, SMTP_FROM: 'no-reply@example.com', NOTIFY_RETRY_DELAY_SECONDS: '1' },
    });
    ({ dataSource, users } = registryOf(service));
  }, 60_000);

  afterAll(async () => {
    await service?.shutdown('test');
    await mailbox?.close();
    await database?.drop();
  });

  const browser = () => new AccountFormClient(service.url);
  const signUp = (client: AccountFormClient, email: string, username: string, password = STRONG) =>
    client.submit(`${SIGN_UP}?lang=en`, { email, username, password });
  const statusOf = async (email: string) =>
    (
      (await dataSource.query('SELECT "status", "email_verified" FROM "identity"."users" WHERE "email" = $1', [
        email,
      ])) as {
        status: string;
        email_verified: boolean;
      }[]
    )[0];

  it('signs up an unverified user of the default saas tenant and mails a link whose token is stored only as a hash', async () => {
    const page = await signUp(browser(), 'ada@example.com', 'ada');
    expect(page.status).toBe(200);
    expect(visibleText(page.html)).toContain('We sent an e-mail to ada@example.com.');
    expect(await statusOf('ada@example.com')).toEqual({ status: 'unverified', email_verified: false });
    const [tenant] = (await dataSource.query(
      `SELECT "tenant"."name", "tenant"."type" FROM "identity"."users" JOIN "identity"."tenants" AS "tenant" ON "tenant"."id" = "users"."tenant_id" WHERE "email" = 'ada@example.com'`,
    )) as { name: string; type: string }[];
    expect(tenant).toEqual({ name: 'default', type: 'saas' });

    const mail = await mailbox.nth('ada@example.com', 1);
    expect(subjectOf(mail)).toBe('Confirm your e-mail address');
    const link = accountLinkIn(mail);
    const token = link.searchParams.get('token') as string;
    const stored = (await dataSource.query('SELECT "token_hash" FROM "identity"."account_tokens"')) as {
      token_hash: string;
    }[];
    expect(stored.map((row) => row.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('confirms the address once when the link is used twice at once, then says it was used', async () => {
    await signUp(browser(), 'bea@example.com', 'bea');
    const link = accountLinkIn(await mailbox.nth('bea@example.com', 1));
    const token = link.searchParams.get('token') as string;
    const [first, second] = [browser(), browser()];
    await Promise.all([first.get(link.pathname + link.search), second.get(link.pathname + link.search)]);
    const pages = await Promise.all([first, second].map((client) => client.post(link.pathname, { token, lang: 'en' })));
    expect(pages.map((page) => page.status).sort()).toEqual([200, 410]);
    expect(pages.find((page) => page.status === 200)?.html).toContain('Your e-mail address is confirmed');
    expect(pages.find((page) => page.status === 410)?.html).toContain('This link has already been used');
    expect(await statusOf('bea@example.com')).toEqual({ status: 'pending', email_verified: true });
  });

  it('says an expired link has expired and offers a new confirmation link', async () => {
    await signUp(browser(), 'cyd@example.com', 'cyd');
    const link = accountLinkIn(await mailbox.nth('cyd@example.com', 1));
    const token = link.searchParams.get('token') as string;
    await dataSource.query(
      `UPDATE "identity"."account_tokens" SET "expires_at" = now() - interval '1 second' WHERE "token_hash" = $1`,
      [createHash('sha256').update(token).digest('hex')],
    );
    const client = browser();
    const page = await client.get(link.pathname + link.search);
    expect(page.status).toBe(410);
    expect(page.html).toContain('This link has expired');
    expect(page.html).toContain('href="/federation/auth/v1/account/resend?lang=en"');
    // A confirmation form opened before the link expired is refused too.
    await client.get(`${SIGN_UP}?lang=en`);
    expect((await client.post(link.pathname, { token, lang: 'en' })).status).toBe(410);
    expect(await statusOf('cyd@example.com')).toEqual({ status: 'unverified', email_verified: false });

    const resent = await client.submit(`${RESEND}?lang=en`, { email: 'cyd@example.com' });
    expect(resent.status).toBe(200);
    const fresh = accountLinkIn(await mailbox.nth('cyd@example.com', 2));
    const confirmed = await client.post(fresh.pathname, {
      token: fresh.searchParams.get('token') as string,
      lang: 'en',
    });
    expect(confirmed.status).toBe(200);
    expect(await statusOf('cyd@example.com')).toEqual({ status: 'pending', email_verified: true });
  });

  it('rate-limits the e-mails to one address: the fourth request in 15 minutes is refused with Retry-After', async () => {
    const client = browser();
    expect((await signUp(client, 'dee@example.com', 'dee')).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await client.submit(`${RESEND}?lang=en`, { email: 'dee@example.com' })).status).toBe(200);
    const refused = await client.submit(`${RESEND}?lang=en`, { email: 'dee@example.com' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.html).toMatch(/Too many requests\. Try again in \d+ minutes\./);
    await mailbox.nth('dee@example.com', 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailbox.received.filter((mail) => mail.to === 'dee@example.com')).toHaveLength(3);
  });

  it('answers sign-up, resend and reset with the same status and text for known and unknown addresses', async () => {
    await users.create({
      email: 'eve@example.com',
      username: 'eve',
      displayName: 'Eve',
      password: STRONG,
      status: 'approved',
    });
    const same = (email: string, page: { status: number; html: string }) => ({
      status: page.status,
      text: visibleText(page.html).replaceAll(email, '<address>'),
    });
    // Each form with an address that has an account and one that has none (never signed up, for resend and reset).
    const cases: [string, (email: string, client: AccountFormClient) => ReturnType<AccountFormClient['submit']>][] = [
      ['newbie@example.com', (email, client) => signUp(client, email, `user-${email.split('@')[0]}`)],
      ['nobody@example.com', (email, client) => client.submit(`${RESEND}?lang=en`, { email })],
      ['nobody@example.com', (email, client) => client.submit(`${FORGOT}?lang=en`, { email })],
    ];
    for (const [unknownAddress, ask] of cases) {
      const known = same('eve@example.com', await ask('eve@example.com', browser()));
      const unknown = same(unknownAddress, await ask(unknownAddress, browser()));
      expect(known.status).toBe(200);
      expect(unknown).toEqual(known);
    }
    // The known address heard of the sign-up (an account-exists e-mail) and of the reset; nothing went to an
    // address without an account, and resend sent nothing to an approved account.
    await mailbox.nth('eve@example.com', 2);
    expect(subjectOf(await mailbox.nth('eve@example.com', 1))).toBe('You already have an account');
    expect(subjectOf(await mailbox.nth('eve@example.com', 2))).toBe('Set a new password');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailbox.received.filter((mail) => mail.to === 'eve@example.com')).toHaveLength(2);
    expect(mailbox.received.filter((mail) => mail.to === 'nobody@example.com')).toHaveLength(0);
    expect(await statusOf('newbie@example.com')).toEqual({ status: 'unverified', email_verified: false });
  });

  it('lets no username tell a known address from an unknown one: a name asked for is held either way', async () => {
    await users.create({
      email: 'ivy@example.com',
      username: 'ivy',
      displayName: 'Ivy',
      password: STRONG,
      status: 'approved',
    });
    // The probe: sign up the target address with a fresh name, then another new address with the same name.
    const probe = async (target: string, name: string) => {
      const first = await signUp(browser(), target, name);
      const second = await signUp(browser(), `other-${name}@example.org`, name);
      return { first: first.status, second: second.status, taken: visibleText(second.html).includes('taken') };
    };
    const known = await probe('ivy@example.com', 'probe-known');
    const unknown = await probe('ivan@example.com', 'probe-unknown');
    expect(known).toEqual(unknown);
    expect(known).toMatchObject({ first: 200, second: 400, taken: true });
  });

  it('refuses an address of a domain whose organization signs in at its own provider (it would take the address first)', async () => {
    const tenantId = randomUUID();
    await dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'corp', 'enterprise', 'https://corp.example', true, now())`,
      [tenantId],
    );
    await dataSource.query(
      `INSERT INTO "identity"."tenant_identity_providers"
         ("tenant_id", "issuer", "client_id", "client_secret_ciphertext", "scopes", "claims", "created_at", "updated_at")
       VALUES ($1, 'https://login.corp.example', 'broker', '\\x00', '{openid}', '{}', now(), now())`,
      [tenantId],
    );
    await dataSource.query(
      `INSERT INTO "identity"."tenant_idp_domains" ("domain", "tenant_id") VALUES ('corp.example', $1)`,
      [tenantId],
    );
    const refused = await signUp(browser(), 'Staff@Corp.example', 'staff-member');
    expect(refused.status).toBe(400);
    expect(visibleText(refused.html)).toContain('sign in with their organization&#39;s identity provider');
    expect(await statusOf('staff@corp.example')).toBeUndefined();
  });

  it('refuses a weak password with the strength feedback and creates nobody', async () => {
    const page = await signUp(browser(), 'fay@example.com', 'fay', 'password123');
    expect(page.status).toBe(400);
    expect(page.html).toContain('This password is too easy to guess.');
    expect(page.html).toContain('This is a commonly used password.');
    expect(page.html).toContain('aria-invalid="true"');
    expect(await statusOf('fay@example.com')).toBeUndefined();
    const personal = await signUp(browser(), 'fay@example.com', 'fay', 'fay@example.com');
    expect(personal.status).toBe(400);
    expect(await statusOf('fay@example.com')).toBeUndefined();
  });

  it('refuses a form posted without the token of its page (CSRF)', async () => {
    const page = await browser().post(SIGN_UP, {
      email: 'gus@example.com',
      username: 'gus',
      password: STRONG,
      lang: 'en',
    });
    expect(page.status).toBe(403);
    expect(page.html).toContain('The form has expired.');
    expect(await statusOf('gus@example.com')).toBeUndefined();
  });

  it('resets a password with a single-use link: the new password works, the old one and the link do not', async () => {
    await users.create({
      email: 'hal@example.com',
      username: 'hal',
      displayName: 'Hal',
      password: STRONG,
      status: 'approved',
    });
    const client = browser();
    expect((await client.submit(`${FORGOT}?lang=en`, { email: 'hal@example.com' })).status).toBe(200);
    const mail = await mailbox.nth('hal@example.com', 1);
    expect(subjectOf(mail)).toBe('Set a new password');
    const link = accountLinkIn(mail);
    const token = link.searchParams.get('token') as string;
    expect((await client.get(link.pathname + link.search)).status).toBe(200);
    const weak = await client.post(link.pathname, { token, password: 'hal12345', lang: 'en' });
    expect(weak.status).toBe(400);
    const done = await client.post(link.pathname, { token, password: 'quiet lantern meadow 42', lang: 'en' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Your password has been changed');
    expect(await users.verifyPassword('hal', 'quiet lantern meadow 42')).not.toBeNull();
    expect(await users.verifyPassword('hal', STRONG)).toBeNull();
    const again = await client.post(link.pathname, { token, password: 'another fresh phrase 7', lang: 'en' });
    expect(again.status).toBe(410);
    expect(await users.verifyPassword('hal', 'quiet lantern meadow 42')).not.toBeNull();
  });
});
