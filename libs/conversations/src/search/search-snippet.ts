// A result's snippet: about SNIPPET_CHARACTERS around the first match, HTML-escaped, matches in <mark>. ts_headline
// marks stemmed matches in the window; literal case-insensitive matches (fragments, CJK) are found here.

/** What ts_headline puts around a stemmed match; the window has had both removed beforehand. */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';

const SNIPPET_CHARACTERS = 160;
/** Shown before the first match. */
const LEAD_CHARACTERS = 50;
/** How far a cut moves to reach a word boundary. */
const SNAP_CHARACTERS = 20;

export interface SnippetWindow {
  /** Part of the message, stemmed matches between MARK_START and MARK_END. */
  marked: string;
  cutBefore: boolean;
  cutAfter: boolean;
}

interface Range {
  start: number;
  end: number;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
const WHITE_SPACE = /\s/;

export function toSnippet(window: SnippetWindow, query: string): string {
  const { plain, ranges: stemmed } = unmark(window.marked);
  const ranges = merge([...stemmed, ...occurrences(plain, query)]);
  const first = ranges[0];
  let start = first && first.start > LEAD_CHARACTERS ? first.start - LEAD_CHARACTERS : 0;
  if (start > 0) start = wordStartFrom(plain, start, first?.start ?? start);
  let end = Math.min(plain.length, Math.max(start + SNIPPET_CHARACTERS, first?.end ?? 0));
  if (end < plain.length) end = wordEndBefore(plain, end, first?.end ?? start);
  const cutBefore = window.cutBefore || start > 0;
  const cutAfter = window.cutAfter || end < plain.length;

  const pieces: string[] = [];
  let at = start;
  for (const range of ranges) {
    const from = Math.max(range.start, start);
    const to = Math.min(range.end, end);
    if (from >= to) continue;
    pieces.push(shown(plain.slice(at, from)), `<mark>${shown(plain.slice(from, to))}</mark>`);
    at = to;
  }
  pieces.push(shown(plain.slice(at, end)));
  const body = pieces.join('').replace(/^ +| +$/g, '');
  return `${cutBefore ? '…' : ''}${body}${cutAfter ? '…' : ''}`;
}

/** Escaped, each run of white space (line breaks included) one space. */
function shown(text: string): string {
  return escapeHtml(text.replace(/\s+/g, ' '));
}

function unmark(marked: string): { plain: string; ranges: Range[] } {
  const ranges: Range[] = [];
  let plain = '';
  let open = -1;
  for (const character of marked) {
    if (character === MARK_START) open = plain.length;
    else if (character === MARK_END) {
      if (open >= 0 && plain.length > open) ranges.push({ start: open, end: plain.length });
      open = -1;
    } else plain += character;
  }
  return { plain, ranges };
}

/** Lowercase, one UTF-16 unit for one (a letter whose lowercase is longer stays as it is), so indices match. */
function fold(text: string): string {
  let folded = '';
  for (const character of text) {
    const lower = character.toLowerCase();
    folded += lower.length === character.length ? lower : character;
  }
  return folded;
}

function occurrences(text: string, query: string): Range[] {
  const needle = fold(query);
  if (needle.length === 0) return [];
  const haystack = fold(text);
  const found: Range[] = [];
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    found.push({ start: at, end: at + needle.length });
  }
  return found;
}

function merge(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Range[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/** A cut at `at` moved forward past the next white space (not beyond `limit`), never inside a surrogate pair. */
function wordStartFrom(text: string, at: number, limit: number): number {
  for (let i = at; i < Math.min(limit, at + SNAP_CHARACTERS); i++) {
    if (WHITE_SPACE.test(text.charAt(i))) return i + 1;
  }
  return isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at;
}

/** A cut at `at` moved back to the previous white space (not before `limit`), never inside a surrogate pair. */
function wordEndBefore(text: string, at: number, limit: number): number {
  for (let i = at; i > Math.max(limit, at - SNAP_CHARACTERS); i--) {
    if (WHITE_SPACE.test(text.charAt(i))) return i;
  }
  return isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
