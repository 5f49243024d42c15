import { markdownBlocks } from './markdown-blocks';

describe('markdownBlocks', () => {
  it('cuts at blank lines: each paragraph, list and table its own block', () => {
    expect(markdownBlocks('# Title\n\nA paragraph\non two lines.\n\n\n- a\n- b\n\n| x |\n|---|\n| 1 |\n')).toEqual([
      '# Title',
      'A paragraph\non two lines.',
      '- a\n- b',
      '| x |\n|---|\n| 1 |',
    ]);
  });

  it('keeps a fenced block whole, blank lines and all, whichever fence it uses', () => {
    const code = '```js\nconst a = 1;\n\n\nconst b = 2;\n```';
    const tilde = '~~~~\n```\n\nstill code\n~~~~';
    expect(markdownBlocks(`Before\n\n${code}\n\n${tilde}\n\nAfter`)).toEqual(['Before', code, tilde, 'After']);
  });

  it('keeps an unclosed fence open to the end, as a streamed answer has it mid-block', () => {
    expect(markdownBlocks('Text\n\n```py\nx = 1\n\ny = 2')).toEqual(['Text', '```py\nx = 1\n\ny = 2']);
  });

  it('leaves the blocks before the last unchanged as the text grows', () => {
    const full = 'One.\n\nTwo, longer.\n\n- a\n- b\n\nThe end.';
    const blocksOf = (length: number) => markdownBlocks(full.slice(0, length));
    for (let length = 1; length <= full.length; length++) {
      const now = blocksOf(length);
      const after = blocksOf(full.length);
      expect(now.slice(0, -1)).toEqual(after.slice(0, now.length - 1));
    }
  });

  it('gives nothing for an empty or blank text', () => {
    expect(markdownBlocks('')).toEqual([]);
    expect(markdownBlocks('\n\n  \n')).toEqual([]);
  });
});
