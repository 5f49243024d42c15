import { type ReactElement, memo, useDeferredValue } from 'react';
import markdownElement, { type Components, defaultUrlTransform } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { useMessages } from '../../../lib/i18n/messages';
import { chatText } from '../messages';
import { markdownBlocks } from './markdown-blocks';

function ImageAlt({ alt }: { alt?: string }) {
  const t = useMessages(chatText);
  return <span className="image-alt">{alt ? t.image(alt) : t.imageUntitled}</span>;
}

// Model output is untrusted: raw HTML in it is shown as text (react-markdown escapes it; no rehype-raw), URLs other than http(s), mailto and
// relative ones are dropped (defaultUrlTransform), and links open in a new tab without the opener.
const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  img: ({ alt }) => <ImageAlt alt={alt} />,
};
const remarkPlugins = [remarkGfm];
const HAS_FENCE = /^\s*(```|~~~)/m;
const rehypePlugins = [[rehypeHighlight, { detect: false }] as const] as NonNullable<
  Parameters<typeof markdownElement>[0]['rehypePlugins']
>;

/**
 * Parsed blocks, by their text: a row scrolled back into view, or an answer drawn again, is not parsed and
 * highlighted again. React elements are immutable, so one can be shown by any number of mounts.
 */
const parsed = new Map<string, ReactElement>();
const PARSED_MAX = 600;

function blockElement(text: string): ReactElement {
  const cached = parsed.get(text);
  if (cached) {
    // Most recently used last: the first entry is the one to drop.
    parsed.delete(text);
    parsed.set(text, cached);
    return cached;
  }
  // react-markdown's synchronous Markdown is a function of its options to an element (no hooks).
  const element = markdownElement({
    children: text,
    remarkPlugins,
    // The highlighter sets up all its languages each time it is used: only for a block with fenced code.
    rehypePlugins: HAS_FENCE.test(text) ? rehypePlugins : [],
    components,
    urlTransform: defaultUrlTransform,
  });
  parsed.set(text, element);
  if (parsed.size > PARSED_MAX) parsed.delete(parsed.keys().next().value as string);
  return element;
}

/**
 * A block not parsed before is first shown as its text and parsed in a transition, which React can interrupt
 * between blocks: rows scrolled into view or a page of history coming in never hold the page for a long task.
 */
const Block = memo(function Block({ text }: { text: string }) {
  const shown = useDeferredValue(text, parsed.has(text) ? text : undefined);
  if (shown === undefined) return <p className="plain-text">{text}</p>;
  return blockElement(shown);
});

/**
 * An answer's text as Markdown: tables (GFM), code blocks highlighted. Drawn block by block (markdown-blocks.ts),
 * so a streaming answer parses only its last block as pieces arrive, not the whole text each time.
 */
export default memo(function Markdown({ text }: { text: string }) {
  return markdownBlocks(text).map((block, index) => <Block key={index} text={block} />);
});
