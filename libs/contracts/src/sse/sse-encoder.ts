// Server-sent-event framing (WHATWG HTML, "Server-sent events"). Pure string builders:
// the HTTP layer decides when to write them.

/** Item 1 of every chat stream. */
export const SSE_CONNECTED = ': connected\n\n';
/** Sent during idle periods (about every 15 s) to keep proxies from closing the stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';
/** Item 5: end of stream. */
export const SSE_DONE = 'data: [DONE]\n\n';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

const LINE_BREAK = /\r\n|\r|\n/;
const FIELD_UNSAFE = /[\r\n\0]/;

export interface SseEventOptions {
  /** Sent as `id:`; a client resumes with it in `Last-Event-ID`. */
  id?: string;
  /** Sent as `event:`; omitted means the default `message` event. */
  event?: string;
}

/**
 * One event. Objects are written as JSON (which never contains a raw line break);
 * strings are split so that every line of a multi-line payload gets its own `data:` field.
 */
export function encodeSseEvent(payload: unknown, options: SseEventOptions = {}): string {
  let out = '';
  if (options.event !== undefined) out += `event: ${checkField('event', options.event)}\n`;
  if (options.id !== undefined) out += `id: ${checkField('id', options.id)}\n`;
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  for (const line of text.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line, ignored by clients: `: connected`, `: heartbeat`. */
export function encodeSseComment(text: string): string {
  return `: ${checkField('comment', text)}\n\n`;
}

function checkField(name: string, value: string): string {
  if (FIELD_UNSAFE.test(value)) throw new RangeError(`SSE ${name} must not contain CR, LF or NUL`);
  return value;
}
