import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import { isStreamOffset } from '@fed/bus';
import { type ConversationOwner } from '@fed/conversations';

/** One JSON-RPC call as the request handler sees it: whose it is, and what the HTTP layer needs back. */
export interface A2aCall {
  owner: ConversationOwner;
  /** Aborted when the client goes away or the instance shuts down: following a run stops, the turn goes on. */
  signal: AbortSignal;
  /** The stream position a resubscribing client last saw (`Last-Event-ID`), if it said. */
  lastEventId?: StreamPosition;
  /** Set by the handler before it yields a stream event: the SSE `id:` of that event. */
  eventId?: string;
}

/**
 * An SSE `id:` of our streams: the run-stream offset of the chunk an event came from, and, for every
 * event of a chunk but its last, the event's index (`<offset>.<index>`), so that a resume after any id
 * neither repeats nor loses an event.
 */
export interface StreamPosition {
  offset: string;
  index?: number;
}

const EVENT_INDEX = /^[0-9]{1,4}$/;

export function parseEventId(value: string): StreamPosition | undefined {
  const [offset = '', index, ...rest] = value.split('.');
  if (!isStreamOffset(offset) || rest.length > 0) return undefined;
  if (index === undefined) return { offset };
  return EVENT_INDEX.test(index) ? { offset, index: Number(index) } : undefined;
}

const CALL = 'fed.a2a.call';

class A2aUser implements User {
  constructor(private readonly userId: string) {}

  get isAuthenticated(): boolean {
    return true;
  }

  get userName(): string {
    return this.userId;
  }
}

export function callContext(call: A2aCall, requestedVersion: string): ServerCallContext {
  return new ServerCallContext({
    user: new A2aUser(call.owner.userId),
    requestedVersion,
    state: new Map([[CALL, call]]),
  });
}

export function callOf(context: ServerCallContext): A2aCall {
  const call = context.state.get(CALL) as A2aCall | undefined;
  if (!call) throw new Error('an A2A call without its caller');
  return call;
}
