// `outputFormat: plain` (document 2: "strips Markdown (diagrams removed, code block bodies kept)").
// Markdown is line-structured, so text is held at most to the next line end; within a line, words no Markdown can
// touch go out at once (`safePrefix`), so prose still streams word by word.

/** Fenced blocks with these info strings are diagrams: removed whole. */
const DIAGRAM_LANGUAGES = new Set(['mermaid', 'plantuml', 'puml', 'dot', 'graphviz', 'd2']);

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}=+[ \t]*$/;
const BLOCKQUOTE = /^ {0,3}>[ \t]?/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
const ATX_CLOSING = /[ \t]+#+[ \t]*$/;
const STAR_BULLET = /^(\s*)[*+](?=[ \t])/;
/** A line whose first visible character is one of these may be a block construct: it is held whole. */
const BLOCK_START = /[`~\-*_=>#+]/;
/** May open an inline construct (or is a placeholder): text before it, ending in whitespace, is already plain. */
const INLINE_START = /[`[<*_~\\\uE000\uE001]/;

// Private-use characters delimit protected pieces (code spans, URLs) while emphasis is removed.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

interface Fence {
  char: string;
  length: number;
  drop: boolean;
}

export class MarkdownStripper {
  private pending = '';
  private fence: Fence | undefined;
  /** The start of the line in `pending` was released already (as plain prose): the rest is inline only. */
  private continued = false;

  /** Adds streamed text; returns the plain text of the lines it completed, and of the words it can already tell. */
  push(text: string): string {
    this.pending += text;
    let out = '';
    const end = this.pending.lastIndexOf('\n');
    if (end >= 0) {
      const complete = this.pending.slice(0, end + 1);
      this.pending = this.pending.slice(end + 1);
      let start = 0;
      while (start < complete.length) {
        const next = complete.indexOf('\n', start) + 1;
        out += this.lineOrRest(complete.slice(start, next));
        start = next;
      }
    }
    return out + this.safePrefix();
  }

  /** Releases the unfinished last line as it stands (a fence left open stays open). */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    const out = rest.length > 0 ? this.lineOrRest(rest) : '';
    this.continued = false;
    return out;
  }

  private lineOrRest(raw: string): string {
    if (!this.continued) return this.line(raw);
    this.continued = false;
    const ending = raw.endsWith('\r\n') ? '\r\n' : raw.endsWith('\n') ? '\n' : '';
    return inline(raw.slice(0, raw.length - ending.length)) + ending;
  }

  /** Releases the unfinished line's leading words no inline construct can reach back into (not in fences or blocks). */
  private safePrefix(): string {
    if (this.fence || this.pending.length === 0) return '';
    if (!this.continued) {
      const first = this.pending.search(/\S/);
      if (first < 0 || BLOCK_START.test(this.pending[first] as string)) return '';
    }
    const marker = this.pending.search(INLINE_START);
    const scope = marker < 0 ? this.pending : this.pending.slice(0, marker);
    let cut = scope.length - 1;
    while (cut >= 0 && !/\s/.test(scope[cut] as string)) cut--;
    if (cut < 0) return '';
    const released = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    this.continued = true;
    return released;
  }

  private line(raw: string): string {
    const ending = raw.endsWith('\r\n') ? '\r\n' : raw.endsWith('\n') ? '\n' : '';
    const body = raw.slice(0, raw.length - ending.length);
    if (this.fence) return this.insideFence(body, ending);

    const open = FENCE_OPEN.exec(body);
    if (open) {
      const marker = open[1];
      // A backtick fence's info string may not contain backticks (`FENCE_OPEN` refuses them).
      this.fence = {
        char: marker[0],
        length: marker.length,
        drop: DIAGRAM_LANGUAGES.has(open[2].toLowerCase()),
      };
      return '';
    }
    if (SETEXT_UNDERLINE.test(body) || THEMATIC_BREAK.test(body)) return ending;

    let text = body;
    while (BLOCKQUOTE.test(text)) text = text.replace(BLOCKQUOTE, '');
    if (ATX_HEADING.test(text)) text = text.replace(ATX_HEADING, '').replace(ATX_CLOSING, '');
    text = text.replace(STAR_BULLET, '$1-');
    return inline(text) + ending;
  }

  private insideFence(body: string, ending: string): string {
    const fence = this.fence as Fence;
    const close = FENCE_CLOSE.exec(body);
    if (close && close[1][0] === fence.char && close[1].length >= fence.length) {
      this.fence = undefined;
      return '';
    }
    return fence.drop ? '' : body + ending;
  }
}

/** Plain text of a whole Markdown text at once (an interaction's content). */
export function stripMarkdown(text: string): string {
  const stripper = new MarkdownStripper();
  return stripper.push(text) + stripper.flush();
}

/** Inline Markdown of one line (outside code blocks) as plain text. */
function inline(line: string): string {
  if (line.includes(OPEN) || line.includes(CLOSE)) return line;
  const kept: string[] = [];
  const protect = (text: string) => `${OPEN}${kept.push(text) - 1}${CLOSE}`;

  let text = line
    // Code spans first: their content is literal.
    .replace(/(`+)(.+?)\1(?!`)/g, (_, _ticks: string, code: string) =>
      protect(code.length > 2 && code.startsWith(' ') && code.endsWith(' ') ? code.slice(1, -1) : code),
    )
    // Images: their alt text.
    .replace(/!\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)/g, (_, alt: string) => alt)
    // Links: `text (url)`.
    .replace(
      /\[([^\]]+)\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+"[^"]*")?\s*\)/g,
      (_, label: string, url: string) => `${label} (${protect(url)})`,
    )
    // Reference links `[text][ref]` keep their text.
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    // Autolinks and bare URLs: kept literally (underscores and stars in them are not emphasis).
    .replace(/<((?:https?|mailto):[^\s<>]+)>/g, (_, url: string) => protect(url))
    .replace(/\bhttps?:\/\/[^\s<>]+/g, (url) => protect(url));

  text = text
    .replace(/(\*\*\*|___)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '$1')
    .replace(/(?<![\p{L}\p{N}_])__(?=\S)(.+?)(?<=\S)__(?![\p{L}\p{N}_])/gu, '$1')
    .replace(/(?<![*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?!\*)/g, '$1')
    .replace(/(?<![\p{L}\p{N}_\\])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\p{L}\p{N}_])/gu, '$1')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '$1')
    .replace(/\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g, '$1');

  // A protected piece may hold another's placeholder (a code span inside a bare URL).
  for (let depth = 0; depth < 3 && text.includes(OPEN); depth++) {
    text = text.replace(PLACEHOLDER, (_, index: string) => kept[Number(index)] ?? '');
  }
  return text;
}
