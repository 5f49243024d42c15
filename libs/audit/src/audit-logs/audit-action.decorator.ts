import { type ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';

export const AUDIT_ACTION = 'fed.audit.action';

export interface AuditActionMetadata {
  resource: string;
  action: string;
}

/** Records the handler's admin action once it answered 2xx; needs AuditTrailModule in the app. */
export const AuditAction = (resource: string, action: string): MethodDecorator =>
  SetMetadata<string, AuditActionMetadata>(AUDIT_ACTION, { resource, action });

const DETAILS = Symbol('fed.audit.details');

const NAMED = Symbol('fed.audit.named');

/** What a handler adds to its audit row: `meta` (a summary of the body, never secrets), or the row's names. */
export interface AuditDetails {
  add(details: Record<string, unknown>): void;
  /** For when the route alone does not name the action (a role change is `promote` or `demote`). */
  name(names: Partial<AuditActionMetadata>): void;
}

interface RequestWithDetails {
  [DETAILS]?: Record<string, unknown>;
  [NAMED]?: Partial<AuditActionMetadata>;
}

export function auditDetailsOf(request: object): Record<string, unknown> | undefined {
  return (request as RequestWithDetails)[DETAILS];
}

export function auditNamesOf(request: object, route: AuditActionMetadata): AuditActionMetadata {
  return { ...route, ...(request as RequestWithDetails)[NAMED] };
}

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
