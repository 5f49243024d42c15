import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { AccessTokenVerifier } from './access-token.verifier';
import { type AuthenticatedRequest, authenticateRequest } from './authenticate-request';
import { setPrincipal } from './current-principal.decorator';
import { type ProtectedResource, protectedResourceUrl } from './protected-resources';
import { PUBLIC_METADATA } from './public.decorator';
import { RESOURCES_METADATA } from './resources.decorator';
import { MARKETPLACE_ONLY_METADATA } from './marketplace-only.decorator';
import { SAAS_ONLY_METADATA } from './saas-only.decorator';
import { SCOPES_METADATA } from './scopes.decorator';

/**
 * In Marketplace, scopes are not checked (spec: "token only, no scope check") and @SaasOnly() routes are 404; its
 * admin panel's @MarketplaceOnly() routes check theirs, and are 404 in SaaS.
 */
@Injectable()
export class AccessTokenGuard implements CanActivate {
  private readonly marketplace: boolean;
  private readonly publicUrl: string;

  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly reflector: Reflector,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.marketplace = config.edition === 'marketplace';
    this.publicUrl = config.http.publicUrl;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // Only HTTP is served; anything else is refused rather than waved through.
    if (context.getType() !== 'http') return false;
    const targets = [context.getHandler(), context.getClass()];
    const marketplaceOnly = this.reflector.getAllAndOverride<boolean>(MARKETPLACE_ONLY_METADATA, targets) === true;
    const absent = this.marketplace
      ? this.reflector.getAllAndOverride<boolean>(SAAS_ONLY_METADATA, targets) === true
      : marketplaceOnly;
    if (absent) {
      // Worded as Nest words an unknown route, so that the two answers are the same.
      const { method, originalUrl } = context.switchToHttp().getRequest<{ method: string; originalUrl: string }>();
      throw new ApiError('not_found', `Cannot ${method} ${originalUrl}`);
    }
    const rule = this.ruleFor(context);
    if (rule === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const resources = this.reflector
      .getAllAndOverride<ProtectedResource[] | undefined>(RESOURCES_METADATA, [
        context.getHandler(),
        context.getClass(),
      ])
      ?.map((resource) => protectedResourceUrl(this.publicUrl, resource));
    const checksScopes = !this.marketplace || marketplaceOnly;
    const principal = await authenticateRequest(this.verifier, request, rule, checksScopes, resources);
    setPrincipal(request, principal);
    return true;
  }

  // The decorator nearest the route wins (method over class).
  private ruleFor(context: ExecutionContext): 'public' | readonly string[] | undefined {
    for (const target of [context.getHandler(), context.getClass()]) {
      if (this.reflector.get<boolean | undefined>(PUBLIC_METADATA, target)) return 'public';
      const anyOf = this.reflector.get<string[] | undefined>(SCOPES_METADATA, target);
      if (anyOf) return anyOf;
    }
    return undefined;
  }
}
