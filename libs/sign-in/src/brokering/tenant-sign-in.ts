import { type Logger } from '@fed/observability';
import { type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import type Provider from 'oidc-provider';
import * as oidc from 'openid-client';
import {
  IDP_CALLBACK_PATH,
  negotiateLocale,
  PAGE_SECURITY_HEADERS,
  type TenantEntity,
  type TenantIdpRepository,
  type UiLocale,
} from '@fed/identity/internal';
import { type IdpAccountsRepository } from './idp-accounts.repository';
import { type IdpCookies, type IdpFlow, resultPath } from './idp-cookies';
import { idpErrorPage } from './idp-pages';
import { type IdpMessage } from './messages';
import { UpstreamAnswerRejected, UpstreamUnreachable, upstreamFailure } from './upstream-clients';
import { type UpstreamSessions } from './upstream-sessions';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const refusalPages = {
  email_missing: { status: 502, message: 'emailMissing' },
  email_outside_domains: { status: 403, message: 'emailOutsideDomains' },
  account_exists: { status: 409, message: 'accountExists' },
  not_approved: { status: 403, message: 'notApproved' },
} as const;

/** Signs a browser of another account out before the login finishes (BrowserSessions in the OIDC module). */
export interface SessionHandOver {
  handOver(req: Request, res: Response, interactionUid: string, accountId: string): Promise<void>;
}

const random = () => randomBytes(32).toString('base64url');

/**
 * Inside oidc-provider's login interaction: the login page sends the browser upstream (`idp_hint` or the e-mail
 * domain); the callback links the user by upstream subject and the interaction finishes like a password login.
 */
export class TenantSignIn {
  private readonly callbackUrl: string;

  constructor(
    private readonly upstream: UpstreamSessions,
    private readonly tenants: TenantIdpRepository,
    private readonly accounts: IdpAccountsRepository,
    private readonly cookies: IdpCookies,
    private readonly logger: Logger,
    authUrl: string,
  ) {
    this.callbackUrl = `${authUrl}${IDP_CALLBACK_PATH}`;
  }

  /** True when it answered. */
  async onLoginPage(
    provider: Provider,
    details: Details,
    locale: UiLocale,
    req: Request,
    res: Response,
    sessions: SessionHandOver,
  ): Promise<boolean> {
    const result = this.cookies.readResult(req.headers.cookie, details.uid);
    if (result) {
      res.append('Set-Cookie', this.cookies.clearResult(details.uid));
      if ('accountId' in result) await sessions.handOver(req, res, details.uid, result.accountId);
      const outcome =
        'accountId' in result
          ? { login: { accountId: result.accountId } }
          : { error: 'access_denied', error_description: 'the identity provider did not sign the user in' };
      await provider.interactionFinished(req, res, outcome, { mergeWithLastSubmission: false });
      return true;
    }
    const hint = details.params.idp_hint;
    if (typeof hint !== 'string' || hint.length === 0 || hint.length > 100) return false;
    const tenant = await this.tenants.tenantNamed(hint);
    if (!tenant || tenant.type !== 'enterprise' || !(await this.upstream.hasProvider(tenant))) return false;
    await this.sendUpstream(tenant, details.uid, locale, res);
    return true;
  }

  /** Before any password is looked at. */
  async onLoginForm(details: Details, login: string, locale: UiLocale, res: Response): Promise<boolean> {
    const at = login.lastIndexOf('@');
    if (at < 1 || login.length > 254) return false;
    const tenant = await this.tenants.tenantOfDomain(login.slice(at + 1));
    if (!tenant) return false;
    await this.sendUpstream(tenant, details.uid, locale, res, login);
    return true;
  }

  async callback(req: Request, res: Response): Promise<void> {
    const flow = this.cookies.readFlow(req.headers.cookie);
    res.append('Set-Cookie', this.cookies.clearFlow());
    if (!flow || req.query.state !== flow.state) {
      return this.page(res, 400, negotiateLocale({ acceptLanguage: req.headers['accept-language'] }), 'expired');
    }
    const callbackUrl = new URL(this.callbackUrl);
    callbackUrl.search = new URL(req.originalUrl, 'http://callback').search;
    let exchanged: Awaited<ReturnType<UpstreamSessions['exchange']>>;
    try {
      exchanged = await this.upstream.exchange(flow.tenantId, { callbackUrl, ...flow });
    } catch (error) {
      if (error instanceof oidc.AuthorizationResponseError)
        return this.finishWith(res, { uid: flow.uid, error: 'access_denied' });
      return this.failed(res, flow.locale, error);
    }
    const { tenant, profile, response } = exchanged;
    if (!tenant.enabled) return this.page(res, 403, flow.locale, 'tenantDisabled');
    const now = new Date();
    const linked = await this.accounts.link(tenant, profile, now);
    if ('refused' in linked) {
      this.logger.info(
        { event: 'idp_login_refused', tenant: tenant.name, reason: linked.refused },
        'identity-provider sign-in refused',
      );
      const { status, message } = refusalPages[linked.refused];
      return this.page(res, status, flow.locale, message);
    }
    await this.upstream.keepTokens(linked.user.id, response, now);
    this.finishWith(res, { uid: flow.uid, accountId: linked.user.id });
  }

  private async sendUpstream(tenant: TenantEntity, uid: string, locale: UiLocale, res: Response, loginHint?: string) {
    if (!tenant.enabled) return this.page(res, 403, locale, 'tenantDisabled');
    const flow: IdpFlow = {
      uid,
      tenantId: tenant.id,
      state: random(),
      nonce: random(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      locale,
    };
    let target: URL;
    try {
      target = await this.upstream.authorizationUrl(tenant, { ...flow, redirectUri: this.callbackUrl, loginHint });
    } catch (error) {
      return this.failed(res, locale, error);
    }
    res.append('Set-Cookie', this.cookies.flow(flow));
    res.set('Cache-Control', 'no-store').redirect(303, target.href);
  }

  private finishWith(res: Response, result: Parameters<IdpCookies['result']>[0]): void {
    res.append('Set-Cookie', this.cookies.result(result));
    res.set('Cache-Control', 'no-store').redirect(303, resultPath(result.uid));
  }

  private failed(res: Response, locale: UiLocale, error: unknown): void {
    const failure = upstreamFailure(error);
    if (failure instanceof UpstreamAnswerRejected) {
      // A forged or tampered ID token reaches here as well as a provider's mistake: the operator should see it.
      this.logger.error({ event: 'idp_answer_rejected', err: failure }, 'identity-provider sign-in refused');
      return this.page(res, 502, locale, 'rejected');
    }
    const unreachable = failure instanceof UpstreamUnreachable;
    this.logger[unreachable ? 'warn' : 'error']({ err: failure }, 'identity-provider sign-in failed');
    this.page(res, unreachable ? 502 : 500, locale, unreachable ? 'unreachable' : 'misconfigured');
  }

  private page(res: Response, status: number, locale: UiLocale, message: IdpMessage): void {
    res.status(status).set(PAGE_SECURITY_HEADERS).send(idpErrorPage(locale, message));
  }
}
