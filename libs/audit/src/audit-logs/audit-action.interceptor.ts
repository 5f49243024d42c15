import { principalOf } from '@fed/auth';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Observable, tap } from 'rxjs';
import { AUDIT_ACTION, type AuditActionMetadata, auditDetailsOf, auditNamesOf } from './audit-action.decorator';
import { AuditTrail, auditActorOf } from './audit-trail';

type AuditedRequest = IncomingMessage & { params?: Record<string, string> };

@Injectable()
export class AuditActionInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly trail: AuditTrail,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const audited = this.reflector.get<AuditActionMetadata | undefined>(AUDIT_ACTION, context.getHandler());
    if (!audited || context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<AuditedRequest>();
    const response = http.getResponse<ServerResponse>();
    // Recorded once the answer has gone out with a 2xx; a refused or failed call leaves no row.
    return next.handle().pipe(
      tap({
        next: () => response.once('finish', () => this.recordIfSucceeded(audited, request, response)),
      }),
    );
  }

  private recordIfSucceeded(audited: AuditActionMetadata, request: AuditedRequest, response: ServerResponse): void {
    if (response.statusCode < 200 || response.statusCode >= 300) return;
    const principal = principalOf(request);
    if (!principal) return;
    const params = request.params && Object.keys(request.params).length > 0 ? { ...request.params } : undefined;
    const details = auditDetailsOf(request);
    const meta = params || details ? { ...params, ...details } : null;
    const { resource, action } = auditNamesOf(request, audited);
    this.trail.record({ resource, action, meta }, auditActorOf(principal, request, this.config.http.trustProxyHops));
  }
}
