import { GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { type GatewayContext } from './gateway-context';

/**
 * Longest request text (characters) the gateway's content filter reads. Beyond it a request is refused
 * while rules of stage `gateway` exist: unread text would pass a `block` rule, and reading it all would
 * hold the event loop (a body may be 32 MB).
 */
export const MAX_FILTERED_TEXT = 1_000_000;

/** What the filter reads of one request: all its text, and the text of the messages this call adds. */
export interface FilteredText {
  /** Every message (and system prompt): `block` rules apply to all of it. */
  all: () => string;
  /**
   * The messages after the last assistant message: what this call adds to a conversation whose history
   * was checked when it was new. Alerts are recorded for these only, so that an agent that sends its
   * whole history with every step does not raise the same alert at every step.
   */
  fresh: () => string;
}

/**
 * Stage `gateway` of the content filter (docs/admin.md, "Guardrail alerts"). Without rules of that stage
 * nothing is read (no cost on the path). With them, the check runs once the key's limits have admitted
 * the call (a key refused by its limits costs no scan) and before any provider is called: matches are
 * recorded as alerts, and a `block` rule refuses the request with 400.
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
        // The agent marks its private-mode turns: their alerts keep no excerpt, as the agent's own stage.
        withoutContents: exchange.header('x-federation-private') === 'true',
      });
    }
    if (verdict.blockedBy) {
      throw new GatewayError('invalid_request', 'content_filtered', 'The request was blocked by the content filter.');
    }
  };
}

/** The index after the last message whose role is `assistant` (0 when there is none). */
export function freshFrom(messages: readonly { role?: unknown }[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'assistant') return i + 1;
  return 0;
}
