import { type TraceContext } from '@fed/contracts';
import { type Attributes, type Context, type Span, context, isSpanContextValid, trace } from '@opentelemetry/api';
import { tracer } from './spans';
import { spanContextFrom } from './trace-context';
import { tracingStarted } from './tracing';

/**
 * A reader that came back later (a reconnect, a resubscribe) joins the turn's trace in a span linked to its
 * own request span. The trace context is stored with the stream's first entry: a reader that starts there
 * sees it (`see`), a later one looks it up once (`lookUp`).
 */
export class RunStreamTrace {
  private settled = false;
  private span: Span | undefined;
  private joined: Context | undefined;

  constructor(
    private readonly name: string,
    private readonly attributes: Attributes,
  ) {}

  see(entryTrace: TraceContext | undefined): void {
    if (this.settled || !entryTrace) return;
    const turn = spanContextFrom(entryTrace);
    if (!turn) return;
    this.settled = true;
    const own = trace.getActiveSpan()?.spanContext();
    if (own?.traceId === turn.traceId) return;
    const parent = trace.setSpanContext(context.active(), turn);
    this.span = tracer.startSpan(
      this.name,
      { attributes: this.attributes, links: own && isSpanContextValid(own) ? [{ context: own }] : [] },
      parent,
    );
    this.joined = trace.setSpan(parent, this.span);
  }

  /** A failure only leaves the reader where it is. */
  async lookUp(traceOfStream: () => Promise<TraceContext | undefined>): Promise<void> {
    if (this.settled || !tracingStarted()) return;
    this.see(await traceOfStream().catch(() => undefined));
    this.settled = true;
  }

  /** Its Redis commands then belong to the turn. */
  within<T>(read: () => Promise<T>): Promise<T> {
    return this.joined ? context.with(this.joined, read) : read();
  }

  end(): void {
    this.span?.end();
    this.span = undefined;
    this.joined = undefined;
  }
}
