import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { DEFAULT_MAX_TOKEN_AGE_SECONDS, Public, bearerTokenFrom, checkAccessTokenClaims } from '@fed/auth';
import { ApiError } from '@fed/contracts';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { type Request, type Response } from 'express';
import { UpstreamMisconfigured, UpstreamUnreachable } from '../brokering/upstream-clients';
import { UpstreamSessions } from '../brokering/upstream-sessions';
import { accessTokenEndedBy, type TenantEntity, type UserEntity, UserRepository } from '@fed/identity/internal';
import { LocalTokenVerifier, TokenRejected } from './local-token-verifier';
import { OAuthError, hasFormBody, isUnreachable, readOAuthForm, sendOAuthError } from './oauth-http';
import { TokenRevocations } from './revocation/token-revocations';
import { isTenantUser } from './token-issuer';

export function userInfoOf(user: UserEntity & { tenant: TenantEntity }, scopes: ReadonlySet<string>) {
  return {
    sub: user.id,
    ...(scopes.has('profile') ? { name: user.displayName, preferred_username: user.username } : {}),
    ...(scopes.has('email') ? { email: user.email, email_verified: user.emailVerified } : {}),
    ...(isTenantUser(user)
      ? {
          idp: {
            sub: user.idpSubject,
            name: user.displayName,
            preferred_username: user.email,
            email: user.email,
            email_verified: user.emailVerified,
            ...(user.organization ? { organization: user.organization } : {}),
            ...(user.job ? { job: user.job } : {}),
            ...(user.bio !== null ? { bio: user.bio } : {}),
          },
        }
      : {}),
  };
}

/**
 * The token in the header, or on POST in an `access_token` form field (RFC 6750 2.2). Tenant-provider users get
 * `idp` fresh from upstream (502 unreachable, 500 misconfigured).
 */
@Controller('federation/auth/v1/userinfo')
export class UserinfoController {
  constructor(
    private readonly verifier: LocalTokenVerifier,
    private readonly users: UserRepository,
    private readonly revocations: TokenRevocations,
    private readonly upstream: UpstreamSessions,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Public()
  @Get()
  get(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.answer(
      res,
      req.headers.authorization,
      undefined,
      'an access token is required in the Authorization header',
    );
  }

  @Public()
  @Post()
  async post(@Req() req: Request, @Res() res: Response): Promise<void> {
    const required = 'an access token is required in the Authorization header or an access_token form parameter';
    // Any other body is not read: the token can only be in the header then.
    if (!hasFormBody(req)) return this.answer(res, req.headers.authorization, undefined, required);
    let form: Record<string, string>;
    try {
      form = await readOAuthForm(req);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      // The rest of a body over the limit is not read: the connection cannot carry another request.
      res.set('Connection', 'close');
      return refuseRequest(res, error.description);
    }
    if (form.access_token !== undefined && req.headers.authorization !== undefined) {
      return refuseRequest(res, 'the access token must be sent in the Authorization header or the form body, not both');
    }
    return this.answer(res, req.headers.authorization, form.access_token, required);
  }

  private async answer(
    res: Response,
    authorization: string | undefined,
    formToken: string | undefined,
    required: string,
  ): Promise<void> {
    const refuse = (description: string) =>
      sendOAuthError(res, 401, 'invalid_token', description, {
        'WWW-Authenticate': `Bearer realm="federation", error="invalid_token", error_description="${description}"`,
      });
    let token: string;
    if (formToken !== undefined) token = formToken;
    else if (!authorization) return refuse(required);
    else {
      try {
        token = bearerTokenFrom(authorization);
      } catch {
        return refuse('the Authorization header must be "Bearer <token>"');
      }
    }
    try {
      const { issuer, clockSkewSeconds } = this.config.auth;
      const payload = await this.verifier.verify(token, issuer, { clockSkewSeconds });
      // The same claim rules as every service's verifier, so ID tokens and wrong-audience tokens are refused here too.
      const claims = checkAccessTokenClaims(
        payload,
        { issuer, clockSkewSeconds, maxTokenAgeSeconds: DEFAULT_MAX_TOKEN_AGE_SECONDS },
        Date.now() / 1000,
      );
      if (await this.revocations.isAccessTokenRevoked(claims.jti)) return refuse('the token has been revoked');
      const scopes = new Set(typeof claims.scope === 'string' ? claims.scope.split(' ') : []);
      const user = /^[0-9a-f-]{36}$/i.test(claims.sub) ? await this.users.find(claims.sub) : null;
      if (!user) {
        // A service account (client credentials) has no profile beyond its subject.
        const serviceAccount = String(claims.preferred_username ?? '').startsWith('service-account-');
        if (serviceAccount) return void res.status(200).set('Cache-Control', 'no-store').json({ sub: claims.sub });
        return refuse('the user no longer exists');
      }
      if (user.status !== 'approved' || accessTokenEndedBy(user.sessionsValidAfter, claims) || !user.tenant) {
        return refuse('the token is no longer valid');
      }
      const member = user as UserEntity & { tenant: TenantEntity };
      const fresh = isTenantUser(member) ? await this.upstream.freshIdp(member) : undefined;
      res
        .status(200)
        .set('Cache-Control', 'no-store')
        .json({ ...userInfoOf(member, scopes), ...(fresh ? { idp: fresh } : {}) });
    } catch (error) {
      if (error instanceof UpstreamUnreachable) {
        this.logger.warn({ err: error }, 'userinfo: identity provider unreachable');
        return sendOAuthError(
          res,
          502,
          'bad_gateway',
          'user information could not be fetched from the identity provider',
        );
      }
      if (error instanceof UpstreamMisconfigured) {
        this.logger.error({ err: error }, 'userinfo: identity provider misconfigured');
        return sendOAuthError(res, 500, 'server_error', "the tenant's identity provider is not configured correctly");
      }
      if (error instanceof TokenRejected || (error instanceof ApiError && error.code === 'invalid_token')) {
        return refuse(error.message);
      }
      if (isUnreachable(error)) {
        this.logger.error({ err: error }, 'userinfo: storage unreachable');
        return sendOAuthError(res, 502, 'bad_gateway', 'user information could not be fetched');
      }
      this.logger.error({ err: error }, 'userinfo failed');
      return sendOAuthError(res, 500, 'server_error', 'the user information could not be produced');
    }
  }
}

/** RFC 6750 3.1: two token methods, a bad form. */
function refuseRequest(res: Response, description: string): void {
  // A repeated parameter's name is the caller's: only RFC 6750's error_description characters go in the header.
  const inHeader = description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '').slice(0, 200);
  sendOAuthError(res, 400, 'invalid_request', description, {
    'WWW-Authenticate': `Bearer realm="federation", error="invalid_request", error_description="${inHeader}"`,
  });
}
