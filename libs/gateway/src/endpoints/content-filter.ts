import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { type RequestText } from '../usage/token-counter';
import { type GatewayContext } from './gateway-context';

/**
 * Stage `gateway` of the content filter (docs/admin.md, "Guardrail alerts"): the request's texts
 * against the rules of that stage; matches are recorded as alerts, a `block` rule refuses the request
 * with 400 before any provider is called. Without such rules nothing is read (no cost on the path).
 */
export function filterContent(context: GatewayContext, exchange: Exchange, texts: () => RequestText): void {
  const guardrails = context.guardrails;
  if (!guardrails) return;
  const verdict = guardrails.engine.check('gateway', texts().texts.join('\n'));
  if (verdict.findings.length === 0) return;
  const principal = exchange.principal;
  guardrails.alerts.record(verdict.findings, {
    service: guardrails.service,
    stage: 'gateway',
    caller: principal
      ? principal.kind === 'api-key'
        ? `api-key:${principal.virtualKeyId}`
        : `client:${principal.label}`
      : null,
  });
  if (verdict.blockedBy) {
    throw new GatewayError('invalid_request', 'content_filtered', 'The request was blocked by the content filter.');
  }
}
