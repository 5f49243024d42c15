import { Fragment, type ReactNode, createElement } from 'react';

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/**
 * A search snippet (escaped text with `<mark>` around matches, docs/chat.md "Snippet") as React nodes, never as
 * HTML: the text is the user's and the model's, so only the marks become elements.
 */
export function snippetNodes(snippet: string): ReactNode[] {
  const nodes: ReactNode[] = [];
  let marked = false;
  snippet.split(/(<mark>|<\/mark>)/).forEach((part, index) => {
    if (part === '<mark>') marked = true;
    else if (part === '</mark>') marked = false;
    else if (part) {
      const text = part.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
      nodes.push(createElement(marked ? 'mark' : Fragment, { key: index }, text));
    }
  });
  return nodes;
}
