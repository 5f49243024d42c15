// Model text must be storable (PostgreSQL text holds no NUL) and valid Unicode. A surrogate pair may
// arrive split across two deltas, so a trailing high surrogate waits for the next one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function storable(text: string): string {
  return text.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\uFFFD');
}

export class StorableStream {
  private held = '';

  push(text: string): string {
    let joined = this.held + text;
    this.held = '';
    const last = joined.charCodeAt(joined.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = joined.slice(-1);
      joined = joined.slice(0, -1);
    }
    return storable(joined);
  }

  flush(): string {
    const rest = this.held;
    this.held = '';
    return storable(rest);
  }
}

/** A whole text (tool arguments shown to the user, an interaction's content) made storable. */
export function storableText(text: string): string {
  return storable(text);
}
