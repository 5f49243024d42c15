// `outputFormat: plain` (document 2: "strips Markdown (diagrams removed, code block bodies kept)").
// Markdown is line-structured, so streamed text is buffered only up to the next line end: complete
// lines are released as they arrive, and the unfinished rest when the writer asks (before a task,
// between model calls, at the end).

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

// Private-use characters delimit protected pieces (code spans, URLs) while emphasis is removed.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

interface Fence {
  char: string;
  length: number;
  /** A diagram: its lines are dropped, not released. */
  drop: boolean;
}

export class MarkdownStripper {
  private pending = '';
  private fence: Fence | undefined;

  /** Adds streamed text; returns the plain text of the lines it completed. */
  push(text: string): string {
    this.pending += text;
    const end = this.pending.lastIndexOf('\n');
    if (end < 0) return '';
    const complete = this.pending.slice(0, end + 1);
    this.pending = this.pending.slice(end + 1);
    let out = '';
    let start = 0;
    while (start < complete.length) {
      const next = complete.indexOf('\n', start) + 1;
      out += this.line(complete.slice(start, next));
      start = next;
    }
    return out;
  }

  /** Releases the unfinished last line as it stands (a fence left open stays open). */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest.length > 0 ? this.line(rest) : '';
  }

  /** One line, with its line end when it has one. */
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
