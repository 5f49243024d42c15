import { isValidElement } from 'react';
import { snippetNodes } from './snippet';

const shown = (snippet: string) =>
  snippetNodes(snippet).map((node) =>
    isValidElement<{ children: string }>(node) && node.type === 'mark'
      ? `[${node.props.children}]`
      : String((node as { props: { children: string } }).props.children),
  );

describe('a search snippet as nodes', () => {
  it('marks the matches and shows the escaped text as text, never as markup', () => {
    expect(shown('…the <mark>quarterly</mark> report &lt;b&gt;draft&lt;/b&gt; &amp; more…')).toEqual([
      '…the ',
      '[quarterly]',
      ' report <b>draft</b> & more…',
    ]);
    expect(shown('&quot;a&quot; &#39;b&#39; <mark>x</mark>')).toEqual(['"a" \'b\' ', '[x]']);
  });
});
