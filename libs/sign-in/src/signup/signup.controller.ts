import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import express, { type Request, type Response } from 'express';
import {
  type AccountContext,
  accountPaths,
  accountUrl,
  interactionUid,
  negotiateLocale,
  PAGE_SECURITY_HEADERS,
} from '@fed/identity/internal';
import { type MailFormOutcome, type Requester, type UnusableLink } from './account-outcomes';
import { FormCsrf } from './form-csrf';
import { accountText } from './messages';
import { PasswordResetService } from './password-reset.service';
import { SignUpService } from './signup.service';
import {
  type MessageView,
  accountLinks,
  emailFormPage,
  lifetimeVars,
  messagePage,
  resetPage,
  signUpPage,
  verifyPage,
} from './signup.pages';

type Form = Record<string, unknown>;
type Page = keyof typeof accountPaths;

// Read by hand first, so a refusal is an HTML page in the user's language, not a JSON error.
const readForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });

interface Answer {
  status: number;
  html: string;
  retryAfterSeconds?: number;
}

/** A link from an e-mail opens a page with a button: only the form's POST uses the link's token. */
@Controller('federation/auth/v1/account')
export class SignUpController {
  constructor(
    private readonly signUps: SignUpService,
    private readonly resets: PasswordResetService,
    private readonly csrf: FormCsrf,
  ) {}

  @Public()
  @Get('signup')
  showSignUp(@Req() req: Request, @Res() res: Response): void {
    this.answer(req, res, (csrf) => ({ status: 200, html: signUpPage(this.form(req, 'signUp', csrf)) }));
  }

  @Public()
  @Post('signup')
  async signUp(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.post(req, res, 'signUp', async (body, context, csrf) => {
      const outcome = await this.signUps.signUp(
        { email: body.email, username: body.username, password: body.password },
        requester(req, context),
      );
      return this.mailFormAnswer(
        outcome,
        context,
        (view) =>
          signUpPage({
            ...this.form(req, 'signUp', csrf, context),
            ...view,
            values: { email: text(body.email), username: text(body.username) },
          }),
        {
          title: 'checkMailTitle',
          paragraph: (email) => accountText(context.locale, 'checkMailBody', { email, ...lifetimeVars }),
          links: accountLinks(context, ['resend']),
        },
      );
    });
  }

  @Public()
  @Get('resend')
  showResend(@Req() req: Request, @Res() res: Response): void {
    this.answer(req, res, (csrf) => ({
      status: 200,
      html: emailFormPage({ ...this.form(req, 'resend', csrf), purpose: 'resend' }),
    }));
  }

  @Public()
  @Post('resend')
  async resend(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.post(req, res, 'resend', async (body, context, csrf) => {
      const outcome = await this.signUps.resend({ email: body.email }, requester(req, context));
      return this.mailFormAnswer(
        outcome,
        context,
        (view) =>
          emailFormPage({
            ...this.form(req, 'resend', csrf, context),
            ...view,
            purpose: 'resend',
            values: { email: text(body.email) },
          }),
        {
          title: 'checkMailTitle',
          paragraph: (email) => accountText(context.locale, 'resendDone', { email }),
          links: accountLinks(context, []),
        },
      );
    });
  }

  @Public()
  @Get('password/forgot')
  showForgot(@Req() req: Request, @Res() res: Response): void {
    this.answer(req, res, (csrf) => ({
      status: 200,
      html: emailFormPage({ ...this.form(req, 'forgot', csrf), purpose: 'forgot' }),
    }));
  }

  @Public()
  @Post('password/forgot')
  async forgot(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.post(req, res, 'forgot', async (body, context, csrf) => {
      const outcome = await this.resets.requestLink({ email: body.email }, requester(req, context));
      return this.mailFormAnswer(
        outcome,
        context,
        (view) =>
          emailFormPage({
            ...this.form(req, 'forgot', csrf, context),
            ...view,
            purpose: 'forgot',
            values: { email: text(body.email) },
          }),
        {
          title: 'checkMailTitle',
          paragraph: (email) => accountText(context.locale, 'forgotDone', { email, ...lifetimeVars }),
          links: accountLinks(context, []),
        },
      );
    });
  }

  @Public()
  @Get('verify')
  async showVerify(@Req() req: Request, @Res() res: Response): Promise<void> {
    const token = text(req.query.token);
    const state = await this.signUps.linkState(token);
    this.answer(req, res, (csrf) => {
      const view = this.form(req, 'verify', csrf, undefined, token);
      return state.usable
        ? { status: 200, html: verifyPage({ ...view, token }) }
        : unusableAnswer({ kind: 'unusable', reason: state.reason }, view.context, 'resend');
    });
  }

  @Public()
  @Post('verify')
  async verify(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.post(req, res, 'verify', async (body, context) => {
      const outcome = await this.signUps.verify(text(body.token));
      if (outcome.kind === 'unusable') return unusableAnswer(outcome, context, 'resend');
      return message(200, {
        context,
        title: 'verifiedTitle',
        paragraphs: [accountText(context.locale, 'verifiedBody')],
        links: accountLinks(context, []),
      });
    });
  }

  @Public()
  @Get('password/reset')
  async showReset(@Req() req: Request, @Res() res: Response): Promise<void> {
    const token = text(req.query.token);
    const state = await this.resets.linkState(token);
    this.answer(req, res, (csrf) => {
      const view = this.form(req, 'reset', csrf, undefined, token);
      return state.usable
        ? { status: 200, html: resetPage({ ...view, token }) }
        : unusableAnswer({ kind: 'unusable', reason: state.reason }, view.context, 'forgot');
    });
  }

  @Public()
  @Post('password/reset')
  async reset(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.post(req, res, 'reset', async (body, context, csrf) => {
      const token = text(body.token);
      const outcome = await this.resets.reset(token, body.password);
      if (outcome.kind === 'unusable') return unusableAnswer(outcome, context, 'forgot');
      if (outcome.kind === 'refused') {
        const view = this.form(req, 'reset', csrf, context, token);
        return { status: 400, html: resetPage({ ...view, token, problems: outcome.problems }) };
      }
      const back = accountLinks(context, []);
      return message(200, {
        context,
        title: 'resetDoneTitle',
        paragraphs: [
          accountText(context.locale, 'resetDoneBody'),
          ...(back.length ? [] : [accountText(context.locale, 'returnToApp')]),
        ],
        links: back,
      });
    });
  }

  private form(req: Request, page: Page, csrf: string, context = contextOf(req), token?: string) {
    const extra: Record<string, string> = token ? { token } : {};
    return {
      context,
      csrf,
      action: accountPaths[page],
      switcher: (locale: AccountContext['locale']) => accountUrl(accountPaths[page], { ...context, locale }, extra),
    };
  }

  /** A POST: the form is read and its CSRF token checked before `handle` sees anything. */
  private async post(
    req: Request,
    res: Response,
    page: Page,
    handle: (body: Form, context: AccountContext, csrf: string) => Promise<Answer>,
  ): Promise<void> {
    let body: Form;
    try {
      body = await new Promise<Form>((resolve, reject) =>
        readForm(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve((req.body ?? {}) as Form))),
      );
    } catch {
      body = {};
    }
    const context = contextOf(req, body);
    if (!this.csrf.valid(req.headers.cookie, body.csrf)) {
      // The same form again, fresh: a stale page or another site's post; nothing was done.
      const alert = accountText(context.locale, 'formExpired');
      return this.answer(req, res, (csrf) => ({
        status: 403,
        html: formPageOf(page, { ...this.form(req, page, csrf, context, text(body.token)), alert }, text(body.token)),
      }));
    }
    const answer = await handle(body, context, this.csrf.issue(req.headers.cookie).token);
    this.answer(req, res, () => answer);
  }

  private mailFormAnswer(
    outcome: MailFormOutcome,
    context: AccountContext,
    again: (view: { problems?: MailFormOutcomeProblems; alert?: string }) => string,
    sent: { title: MessageView['title']; paragraph: (email: string) => string; links: MessageView['links'] },
  ): Answer {
    if (outcome.kind === 'refused') return { status: 400, html: again({ problems: outcome.problems }) };
    if (outcome.kind === 'throttled') {
      const minutes = Math.ceil(outcome.retryAfterSeconds / 60);
      return {
        status: 429,
        html: again({ alert: accountText(context.locale, 'tooMany', { minutes }) }),
        retryAfterSeconds: outcome.retryAfterSeconds,
      };
    }
    return message(200, { context, title: sent.title, paragraphs: [sent.paragraph(outcome.email)], links: sent.links });
  }

  /** Sends a page with the security headers and a fresh CSRF cookie (renewed on every page). */
  private answer(req: Request, res: Response, build: (csrf: string) => Answer): void {
    const csrf = this.csrf.issue(req.headers.cookie);
    const answer = build(csrf.token);
    res.status(answer.status).set(PAGE_SECURITY_HEADERS).set('Referrer-Policy', 'no-referrer');
    res.append('Set-Cookie', csrf.setCookie);
    if (answer.retryAfterSeconds) res.setHeader('Retry-After', String(answer.retryAfterSeconds));
    res.send(answer.html);
  }
}

type MailFormOutcomeProblems = Extract<MailFormOutcome, { kind: 'refused' }>['problems'];

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function contextOf(req: Request, body: Form = {}): AccountContext {
  return {
    locale: negotiateLocale({
      chosen: body.lang ?? req.query.lang,
      uiLocales: req.query.ui_locales,
      acceptLanguage: req.headers['accept-language'],
    }),
    interaction: interactionUid(body.interaction ?? req.query.interaction),
  };
}

function requester(req: Request, context: AccountContext): Requester {
  return { address: req.ip ?? 'unknown', context };
}

function message(status: number, view: MessageView): Answer {
  return { status, html: messagePage(view) };
}

const unusableTitles = { used: 'linkUsedTitle', expired: 'linkExpiredTitle', unknown: 'linkUnknownTitle' } as const;

/** Used or expired: 410; never issued: 404. */
function unusableAnswer(outcome: UnusableLink, context: AccountContext, renew: 'resend' | 'forgot'): Answer {
  const help = renew === 'resend' ? 'verifyLinkHelp' : 'resetLinkHelp';
  return message(outcome.reason === 'unknown' ? 404 : 410, {
    context,
    title: unusableTitles[outcome.reason],
    paragraphs: [accountText(context.locale, help)],
    links: accountLinks(context, [renew]),
  });
}

type FormPageView = Parameters<typeof signUpPage>[0];

function formPageOf(page: Page, view: FormPageView, token: string): string {
  switch (page) {
    case 'signUp':
      return signUpPage(view);
    case 'resend':
    case 'forgot':
      return emailFormPage({ ...view, purpose: page });
    case 'verify':
      return verifyPage({ ...view, token });
    case 'reset':
      return resetPage({ ...view, token });
  }
}
