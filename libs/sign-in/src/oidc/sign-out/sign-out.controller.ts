import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { LOGGER, type Logger } from '@fed/observability';
import express, { type Request, type Response } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  isUiLocale,
  KeyEncryption,
  negotiateLocale,
  PAGE_SECURITY_HEADERS,
  type UiLocale,
} from '@fed/identity/internal';
import { errorPage } from '../interactions/pages';
import { OIDC_BASE_PATH } from '../oidc-provider.factory';
import { BrowserSessions } from './browser-sessions';
import { type SignOutReturnTarget, SignOutReturn, signOutParams } from './sign-out-return';
import { signOutDonePage, signOutPage } from './sign-out.pages';

export const SIGN_OUT_PATH = `${OIDC_BASE_PATH}/logout`;

// Read by hand, as the interaction forms are: a refusal is a page in the user's language, not JSON.
const readForm = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 10 });

type Source = Record<string, unknown>;

/**
 * The provider's only sign-out (oidc-provider's end-session route is disabled). GET asks for confirmation; the
 * form's POST, CSRF-bound to the session, ends it. A POST without the form's token is treated like the GET.
 */
@Controller('federation/auth/v1/logout')
export class SignOutController {
  private readonly csrfKey: Buffer;

  constructor(
    private readonly returns: SignOutReturn,
    private readonly sessions: BrowserSessions,
    encryption: KeyEncryption,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.csrfKey = encryption.derive('sign-out-csrf');
  }

  @Public()
  @Get()
  async show(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.confirm(req, res, req.query as Source);
  }

  @Public()
  @Post()
  async submit(@Req() req: Request, @Res() res: Response): Promise<void> {
    let body: Source;
    try {
      body = await new Promise<Source>((resolve, reject) =>
        readForm(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve((req.body ?? {}) as Source))),
      );
    } catch {
      return this.send(
        res,
        400,
        errorPage({ locale: this.locale(req, {}), error: 'invalid_request', message: 'formUnreadable' }),
      );
    }
    if (body.csrf === undefined) return this.confirm(req, res, body);
    const target = await this.returns.resolve(signOutParams(body));
    const locale = this.locale(req, body);
    const session = await this.sessions.of(req, res);
    // Signed out already (another tab, an expired session): there is nothing left to confirm.
    if (!session) return this.finish(res, target, locale, 'signed_out');
    if (!this.csrfValid(session.uid, body.csrf)) {
      return this.send(res, 403, errorPage({ locale, error: 'invalid_request', message: 'formExpired' }));
    }
    if (body.decision !== 'sign_out') return this.finish(res, target, locale, 'stayed');
    await session.end();
    this.logger.info(
      { event: 'signed_out', userId: session.accountId, clientId: target.client?.clientId },
      'signed out',
    );
    return this.finish(res, target, locale, 'signed_out');
  }

  private async confirm(req: Request, res: Response, source: Source): Promise<void> {
    const target = await this.returns.resolve(signOutParams(source));
    const locale = this.locale(req, source);
    const session = await this.sessions.of(req, res);
    if (!session) return this.finish(res, target, locale, 'signed_out');
    const chosen = isUiLocale(source.lang) ? source.lang : undefined;
    // Only what was found valid, plus the language hints.
    const kept = {
      client_id: target.client?.clientId,
      post_logout_redirect_uri: target.postLogoutRedirectUri,
      state: target.state,
      ui_locales: stringOf(source.ui_locales),
    };
    this.send(
      res,
      200,
      signOutPage({
        locale,
        action: SIGN_OUT_PATH,
        hidden: { csrf: this.csrf(session.uid), ...kept, lang: chosen },
        clientName: target.client?.name,
        switcher: (language) => `${SIGN_OUT_PATH}?${query({ ...kept, lang: language })}`,
      }),
    );
  }

  private finish(res: Response, target: SignOutReturnTarget, locale: UiLocale, outcome: 'signed_out' | 'stayed'): void {
    if (target.location) {
      res.status(303).set(PAGE_SECURITY_HEADERS).set('Location', target.location).end();
      return;
    }
    this.send(res, 200, signOutDonePage(locale, outcome));
  }

  private locale(req: Request, source: Source): UiLocale {
    return negotiateLocale({
      chosen: source.lang,
      uiLocales: source.ui_locales,
      acceptLanguage: req.headers['accept-language'],
    });
  }

  private csrf(sessionUid: string): string {
    return createHmac('sha256', this.csrfKey).update(sessionUid).digest('base64url');
  }

  private csrfValid(sessionUid: string, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.csrf(sessionUid));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private send(res: Response, status: number, html: string): void {
    res.status(status).set(PAGE_SECURITY_HEADERS).send(html);
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 200 ? value : undefined;
}

function query(fields: Record<string, string | undefined>): string {
  const entries = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return new URLSearchParams(entries).toString();
}
