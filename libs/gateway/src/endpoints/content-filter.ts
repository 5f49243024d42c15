import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { type GatewayContext } from './gateway-context';

/**
 * Beyond this many characters a request is refused while `gateway` rules exist: unread text would pass
 * a `block` rule, and reading it all would hold the event loop (a body may be 32 MB).
 */
export const MAX_FILTERED_TEXT = 1_000_000;

export interface FilteredText {
  all: () => string;
  /**
   * The messages after the last assistant message. Alerts are recorded for these only, so an agent that
   * resends its history every step does not raise the same alert every step.
   */
  fresh: () => string;
}

/**
 * Stage `gateway` of the content filter (docs/admin.md, "Guardrail alerts"). Runs after the key's limits
 * admitted the call (a refused key costs no scan) and before any provider is called.
 */
export function screenContent(context: GatewayContext, exchange: Exchange, text: FilteredText): void {
  const guardrails = context.guardrails;
  if (!guardrails) return;
  exchange.beforeDispatch = () => {
    const all = text.all();
    if (all.length > MAX_FILTERED_TEXT) {
      throw new GatewayError(
        'invalid_request',
        'content_filtered',
        `The request's text is longer than the content filter reads (${MAX_FILTERED_TEXT} characters).`,
      );
    }
    const verdict = guardrails.engine.check('gateway', all);
    if (verdict.findings.length === 0) return;
    const fresh = text.fresh();
    const alerts = fresh === all ? verdict.findings : guardrails.engine.check('gateway', fresh).findings;
    const blocking = verdict.findings.find((finding) => finding.rule === verdict.blockedBy);
    // A refusal is always recorded, even when what it matched is in the history.
    if (blocking && !alerts.some((finding) => finding.rule === blocking.rule)) alerts.push(blocking);
    if (alerts.length > 0) {
      const principal = exchange.principal;
      guardrails.alerts.record(alerts, {
        service: guardrails.service,
        stage: 'gateway',
        tenantId: principal?.tenantId ?? null,
        caller: principal
          ? principal.kind === 'api-key'
            ? `api-key:${principal.virtualKeyId}`
            : `client:${principal.label}`
          : null,
        // Private-mode turns: their alerts keep no excerpt, as the agent's own stage.
        withoutContents: exchange.header('x-federation-private') === 'true',
      });
    }
    if (verdict.blockedBy) {
      throw new GatewayError('invalid_request', 'content_filtered', 'The request was blocked by the content filter.');
    }
  };
}

export function freshFrom(messages: readonly { role?: unknown }[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'assistant') return i + 1;
  return 0;
}
