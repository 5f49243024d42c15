import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { LOGGER, type Logger } from '@fed/observability';
import express, { type Request, type Response } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import {
  ClientRepository,
  KeyEncryption,
  loginPageLinks,
  PAGE_SECURITY_HEADERS,
  type UiLocale,
  UserRepository,
} from '@fed/identity/internal';
import { registeredByOf } from '../registration/client-metadata';
import { ConsentRepository } from '../../consents/consent.repository';
import { TenantSignIn } from '../../brokering/tenant-sign-in';
import { INTERACTION_PATH, grantScopesOfRole, scopesToConsent } from '../oidc-provider.factory';
import { scopesHeldBy } from '../role-scopes';
import { OIDC_PROVIDER } from '../oidc.tokens';
import { CHOSEN_LOCALE_RESULT, interactionLocale, interactionSwitcher } from './interaction-locale';
import { signInText } from './messages';
import { type ErrorMessage, consentPage, errorPage, loginPage } from './pages';
import { PasswordSignIn } from './password-sign-in';
import { notApprovedAnswer } from '../../signup/sign-in-refusal';
import { BrowserSessions } from '../sign-out/browser-sessions';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

// Read by hand, only after the interaction and CSRF token are checked, so a refusal is this page again, not JSON.
const readForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });

/** Each form carries a CSRF token derived from the interaction (HMAC). */
@Controller('federation/auth/v1/interaction')
export class InteractionController {
  private readonly csrfKey: Buffer;

  constructor(
    @Inject(OIDC_PROVIDER) private readonly provider: Provider,
    private readonly clients: ClientRepository,
    private readonly consents: ConsentRepository,
    private readonly users: UserRepository,
    private readonly signIn: PasswordSignIn,
    private readonly tenantSignIn: TenantSignIn,
    private readonly sessions: BrowserSessions,
    encryption: KeyEncryption,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.csrfKey = encryption.derive('interaction-csrf');
  }

  @Public()
  @Get(':uid')
  async show(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const details = await this.details(uid, req, res);
    if (!details) return;
    const { locale, chosen } = interactionLocale(details, req);
    const client = await this.clients.find(String(details.params.client_id));
    if (!client) return this.fail(res, 400, 'invalid_client', 'clientUnavailable', locale);
    const switcher = interactionSwitcher(`${INTERACTION_PATH}/${uid}`);
    if (details.prompt.name === 'login') {
      if (await this.tenantSignIn.onLoginPage(this.provider, details, locale, req, res, this.sessions)) return;
      return this.send(
        res,
        200,
        loginPage({
          locale,
          chosenLocale: chosen,
          switcher,
          action: `${INTERACTION_PATH}/${uid}/login`,
          csrf: this.csrf(uid),
          clientName: client.name,
          ...loginPageLinks(uid, locale),
        }),
      );
    }
    // Never a scope the user cannot hold: a user who is not an admin is not offered management scopes.
    const user = details.session?.accountId ? await this.users.find(details.session.accountId) : null;
    if (!user) return this.fail(res, 400, 'invalid_request', 'interactionExpired', locale);
    return this.send(
      res,
      200,
      consentPage({
        locale,
        chosenLocale: chosen,
        switcher,
        action: `${INTERACTION_PATH}/${uid}/consent`,
        csrf: this.csrf(uid),
        clientName: client.name,
        scopes: scopesToConsent(details.params.scope, user, client.scopes),
        registeredBy: registeredByOf(client, details.params.redirect_uri),
      }),
    );
  }

  @Public()
  @Post(':uid/login')
  async login(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = await this.form(uid, req, res, 'login');
    if (!form) return;
    const { details, body, locale, chosen } = form;
    const client = await this.clients.find(String(details.params.client_id));
    const clientName = client?.name ?? String(details.params.client_id);
    const login = (typeof body.login === 'string' ? body.login : '').trim().toLowerCase();
    const password = typeof body.password === 'string' ? body.password : '';
    const again = (status: number, error: string, moreLinks?: { href: string; text: string }[]) =>
      this.send(
        res,
        status,
        loginPage({
          locale,
          chosenLocale: chosen,
          switcher: interactionSwitcher(`${INTERACTION_PATH}/${uid}`),
          action: `${INTERACTION_PATH}/${uid}/login`,
          csrf: this.csrf(uid),
          clientName,
          login,
          error,
          ...loginPageLinks(uid, locale),
          moreLinks,
        }),
      );
    if (await this.tenantSignIn.onLoginForm(details, login, locale, res)) return;
    if (login === '' || password === '') return again(400, signInText(locale, 'missingFields'));

    const attempt = await this.signIn.attempt(login, password, {
      address: req.ip ?? 'unknown',
      cookieHeader: req.headers.cookie,
    });
    if (attempt.refused) {
      res.setHeader('Retry-After', String(attempt.retryAfterSeconds));
      return again(429, signInText(locale, 'tooManyAttempts', { seconds: attempt.retryAfterSeconds }));
    }
    const user = attempt.user;
    if (!user) {
      this.logger.info({ event: 'login_failed' }, 'login failed');
      return again(401, signInText(locale, 'wrongCredentials'));
    }
    if (user.status !== 'approved') {
      const refusal = notApprovedAnswer(user.status, uid, locale);
      return again(403, refusal.error, refusal.links);
    }
    if (attempt.deviceCookie) res.append('Set-Cookie', attempt.deviceCookie);
    await this.sessions.handOver(req, res, uid, user.id);
    await this.provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.id }, [CHOSEN_LOCALE_RESULT]: chosen },
      { mergeWithLastSubmission: false },
    );
  }

  @Public()
  @Post(':uid/consent')
  async consent(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = await this.form(uid, req, res, 'consent');
    if (!form) return;
    const { details, body } = form;
    const accountId = details.session?.accountId;
    const client = await this.clients.find(String(details.params.client_id));
    const user = accountId ? await this.users.find(accountId) : null;
    if (body.decision !== 'allow' || !accountId || !client || !user) {
      await this.provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user denied access' },
        { mergeWithLastSubmission: true },
      );
      return;
    }
    const existing = details.grantId ? await this.provider.Grant.find(details.grantId) : undefined;
    const grant = existing ?? new this.provider.Grant({ accountId, clientId: client.clientId });
    grantScopesOfRole(grant, user, client.scopes);
    const grantId = await grant.save();
    const held = scopesHeldBy(user, client.scopes);
    const agreed = scopesToConsent(details.params.scope, user, client.scopes).filter((name) => held.includes(name));
    await this.consents.record(accountId, client.clientId, agreed, held);
    await this.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  /** An error page when the interaction is unknown, expired or another browser's. */
  private async details(uid: string, req: Request, res: Response): Promise<Details | undefined> {
    let details: Details;
    try {
      details = await this.provider.interactionDetails(req, res);
    } catch {
      this.fail(res, 400, 'invalid_request', 'interactionExpired', interactionLocale(undefined, req).locale);
      return undefined;
    }
    if (details.uid !== uid) {
      this.fail(res, 400, 'invalid_request', 'interactionMismatch', interactionLocale(details, req).locale);
      return undefined;
    }
    return details;
  }

  private async form(uid: string, req: Request, res: Response, prompt: 'login' | 'consent') {
    const details = await this.details(uid, req, res);
    if (!details) return undefined;
    if (details.prompt.name !== prompt) {
      this.fail(res, 400, 'invalid_request', 'stepDone', interactionLocale(details, req).locale);
      return undefined;
    }
    let body: Record<string, unknown>;
    try {
      body = await new Promise<Record<string, unknown>>((resolve, reject) =>
        readForm(req, res, (error?: unknown) =>
          error ? reject(error as Error) : resolve((req.body ?? {}) as Record<string, unknown>),
        ),
      );
    } catch {
      this.fail(res, 400, 'invalid_request', 'formUnreadable', interactionLocale(details, req).locale);
      return undefined;
    }
    const { locale, chosen } = interactionLocale(details, req, body.lang);
    if (!this.csrfValid(uid, body.csrf)) {
      this.fail(res, 403, 'invalid_request', 'formExpired', locale);
      return undefined;
    }
    return { details, body, locale, chosen };
  }

  private csrf(uid: string): string {
    return createHmac('sha256', this.csrfKey).update(uid).digest('base64url');
  }

  private csrfValid(uid: string, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.csrf(uid));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private fail(res: Response, status: number, error: string, message: ErrorMessage, locale: UiLocale): void {
    this.send(res, status, errorPage({ locale, error, message }));
  }

  private send(res: Response, status: number, html: string): void {
    res.status(status).set(PAGE_SECURITY_HEADERS).send(html);
  }
}
