// WHATWG HTML, "Server-sent events".

/** Item 1 of every chat stream. */
export const SSE_CONNECTED = ': connected\n\n';
/** Keeps proxies from closing an idle stream. */
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
  /** A client resumes with it in `Last-Event-ID`. */
  id?: string;
  /** Omitted means the default `message` event. */
  event?: string;
}

/** Objects are written as JSON (never a raw line break); each line of a string gets its own `data:` field. */
export function encodeSseEvent(payload: unknown, options: SseEventOptions = {}): string {
  let out = '';
  if (options.event !== undefined) out += `event: ${checkField('event', options.event)}\n`;
  if (options.id !== undefined) out += `id: ${checkField('id', options.id)}\n`;
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  for (const line of text.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export function encodeSseComment(text: string): string {
  return `: ${checkField('comment', text)}\n\n`;
}

function checkField(name: string, value: string): string {
  if (FIELD_UNSAFE.test(value)) throw new RangeError(`SSE ${name} must not contain CR, LF or NUL`);
  return value;
}
