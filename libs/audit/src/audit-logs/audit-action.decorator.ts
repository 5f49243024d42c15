import { type ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';

export const AUDIT_ACTION = 'fed.audit.action';

export interface AuditActionMetadata {
  resource: string;
  action: string;
}

/**
 * Records the admin action of this handler in the audit log once it has answered with a 2xx:
 * `meta` is the route's parameters, plus what the handler adds through `@AuditDetails()`. Needs
 * AuditTrailModule in the app (admin-service imports it).
 */
export const AuditAction = (resource: string, action: string): MethodDecorator =>
  SetMetadata<string, AuditActionMetadata>(AUDIT_ACTION, { resource, action });

const DETAILS = Symbol('fed.audit.details');

const NAMED = Symbol('fed.audit.named');

/** What a handler adds to its audit row: `meta` (a summary of the body, never secrets), or the row's names. */
export interface AuditDetails {
  add(details: Record<string, unknown>): void;
  /** Names the action when the route alone does not (a role change is `promote` or `demote`; a shared handler's resource). */
  name(names: Partial<AuditActionMetadata>): void;
}

interface RequestWithDetails {
  [DETAILS]?: Record<string, unknown>;
  [NAMED]?: Partial<AuditActionMetadata>;
}

export function auditDetailsOf(request: object): Record<string, unknown> | undefined {
  return (request as RequestWithDetails)[DETAILS];
}

/** The route's resource and action, as the handler named them (`AuditDetails.name`) where it did. */
export function auditNamesOf(request: object, route: AuditActionMetadata): AuditActionMetadata {
  return { ...route, ...(request as RequestWithDetails)[NAMED] };
}

/** `@AuditDetails() audit: AuditDetails` in a handler decorated with `@AuditAction`. */
export const AuditDetails = createParamDecorator((_data: unknown, context: ExecutionContext): AuditDetails => {
  const request = context.switchToHttp().getRequest<RequestWithDetails>();
  return {
    add: (details) => {
      request[DETAILS] = { ...request[DETAILS], ...details };
    },
    name: (names) => {
      request[NAMED] = { ...request[NAMED], ...names };
    },
  };
});
