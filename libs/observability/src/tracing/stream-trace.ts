import { type TraceContext } from '@fed/contracts';
import { type Attributes, type Context, type Span, context, isSpanContextValid, trace } from '@opentelemetry/api';
import { tracer } from './spans';
import { spanContextFrom } from './trace-context';
import { tracingStarted } from './tracing';

/**
 * The trace of one reader of a turn's run stream (the chat relay, A2A and MCP streams). A reader whose
 * request started the turn is in the turn's trace already; one that came back later (a reconnect, a
 * resubscribe) joins it: its reading goes on in a span of the turn's trace, linked to the reader's own
 * request span. The turn's trace context is stored once, with the stream's first entry: a reader that
 * starts there sees it (`see`), one that starts later looks it up once (`lookUp`).
 */
export class RunStreamTrace {
  private settled = false;
  private span: Span | undefined;
  private joined: Context | undefined;

  constructor(
    private readonly name: string,
    private readonly attributes: Attributes,
  ) {}

  /** Looks at an entry's trace context, until the reader is known to be in the turn's trace. */
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

  /** Asks the stream for the turn's trace context once, when tracing is on; a failure only leaves the reader where it is. */
  async lookUp(traceOfStream: () => Promise<TraceContext | undefined>): Promise<void> {
    if (this.settled || !tracingStarted()) return;
    this.see(await traceOfStream().catch(() => undefined));
    this.settled = true;
  }

  /** Runs a read of the stream in the turn's trace once joined (its Redis commands then belong to the turn). */
  within<T>(read: () => Promise<T>): Promise<T> {
    return this.joined ? context.with(this.joined, read) : read();
  }

  end(): void {
    this.span?.end();
    this.span = undefined;
    this.joined = undefined;
  }
}
