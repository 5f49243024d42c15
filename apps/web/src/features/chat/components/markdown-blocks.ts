const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * A Markdown text cut into its top-level blocks at blank lines outside fenced code, each a whole document of its
 * own: a paragraph, a list, a table, a fenced block. Every block but the last stays the same as a streamed answer
 * grows, so only the last one needs parsing again. (A loose list is cut between its items; each part keeps its
 * numbering, since an ordered list that starts at 3 is drawn from 3.)
 */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === undefined && marker) fence = marker[0].repeat(marker.length);
    else if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length)
      fence = undefined;
    if (fence === undefined && line.trim() === '' && current.length > 0) {
      blocks.push(current.join('\n'));
      current = [];
    } else if (!(line.trim() === '' && current.length === 0 && fence === undefined)) {
      current.push(line);
    }
  }
  if (current.length > 0) blocks.push(current.join('\n'));
  return blocks;
}
