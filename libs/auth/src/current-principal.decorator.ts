import { type ExecutionContext, createParamDecorator } from '@nestjs/common';
import { type AccessTokenPrincipal } from './access-token.principal';

const PRINCIPAL = Symbol('fed.auth.principal');

interface RequestWithPrincipal {
  [PRINCIPAL]?: AccessTokenPrincipal;
}

/** The principal the guard put on the request; undefined on a @Public() route. */
export function principalOf(request: object): AccessTokenPrincipal | undefined {
  return (request as RequestWithPrincipal)[PRINCIPAL];
}

export function setPrincipal(request: object, principal: AccessTokenPrincipal): void {
  (request as RequestWithPrincipal)[PRINCIPAL] = principal;
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  principalOf(context.switchToHttp().getRequest<object>()),
);
