import ReactMarkdown, { type Components, defaultUrlTransform } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { useMessages } from '../../../lib/i18n/messages';
import { chatText } from '../messages';

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

/** An answer's text as Markdown: tables (GFM), code blocks highlighted. */
export default function Markdown({ text }: { text: string }) {
  return (
    <ReactMarkdown
      remarkPlugins={[remarkGfm]}
      rehypePlugins={[[rehypeHighlight, { detect: false }]]}
      components={components}
      urlTransform={defaultUrlTransform}
    >
      {text}
    </ReactMarkdown>
  );
}
