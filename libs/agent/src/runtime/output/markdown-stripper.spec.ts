import { MarkdownStripper, stripMarkdown } from './markdown-stripper';

/** Streams `text` through a stripper cut at the given positions. */
function streamed(text: string, cuts: number[]): string {
  const stripper = new MarkdownStripper();
  let out = '';
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    out += stripper.push(text.slice(from, cut));
    from = cut;
  }
  return out + stripper.flush();
}

const SAMPLE = [
  '# Trip plan',
  '',
  'Here is **the plan** for _Tuesday_, see [the map](https://maps.example/a_b?x=1) and `npm run build`.',
  '',
  '```mermaid',
  'graph TD; A-->B',
  '```',
  '',
  '> Quoted *advice*',
  '',
  '```ts',
  'const a = **not bold**;',
  '```',
  '',
  '![A photo of the beach](https://img.example/beach.png)',
  '- first item',
  '* second item',
  '',
].join('\n');

const SAMPLE_PLAIN = [
  'Trip plan',
  '',
  'Here is the plan for Tuesday, see the map (https://maps.example/a_b?x=1) and npm run build.',
  '',
  '',
  'Quoted advice',
  '',
  'const a = **not bold**;',
  '',
  'A photo of the beach',
  '- first item',
  '- second item',
  '',
].join('\n');

describe('Markdown stripping for outputFormat plain', () => {
  describe('blocks', () => {
    it('removes heading markers, closing hashes included', () => {
      expect(stripMarkdown('# Title\n### Sub title ###\n####### not a heading\n')).toBe(
        'Title\nSub title\n####### not a heading\n',
      );
    });

    it('removes setext underlines and thematic breaks but keeps the line break', () => {
      expect(stripMarkdown('Title\n=====\ntext\n---\n* * *\nmore\n')).toBe('Title\n\ntext\n\n\nmore\n');
    });

    it('removes blockquote markers, nested ones included', () => {
      expect(stripMarkdown('> one\n>> two\n> > three\n')).toBe('one\ntwo\nthree\n');
    });

    it('keeps a code block body verbatim without its fences', () => {
      expect(stripMarkdown('before\n```python\nprint("*x*")  # [a](b)\n```\nafter\n')).toBe(
        'before\nprint("*x*")  # [a](b)\nafter\n',
      );
    });

    it('keeps the body of tilde fences and fences without an info string', () => {
      expect(stripMarkdown('~~~\nplain body\n~~~\n```\n`ticks`\n```\n')).toBe('plain body\n`ticks`\n');
    });

    it.each(['mermaid', 'plantuml', 'dot', 'graphviz', 'd2', 'Mermaid'])('removes %s diagrams whole', (language) => {
      expect(stripMarkdown(`a\n\`\`\`${language}\nA -> B\nB -> C\n\`\`\`\nb\n`)).toBe('a\nb\n');
    });

    it('closes a fence only with a fence of the same character at least as long', () => {
      expect(stripMarkdown('````\n```\n~~~\ncode\n````\nafter\n')).toBe('```\n~~~\ncode\nafter\n');
    });

    it('keeps the body of a fence left open at the end', () => {
      expect(stripMarkdown('```js\nlet a = 1;\nlet b = 2;')).toBe('let a = 1;\nlet b = 2;');
    });

    it('drops a diagram left open at the end', () => {
      expect(stripMarkdown('text\n```mermaid\ngraph TD;')).toBe('text\n');
    });

    it('turns star and plus bullets into dashes and keeps numbered lists', () => {
      expect(stripMarkdown('* a\n  + b\n1. c\n- d\n')).toBe('- a\n  - b\n1. c\n- d\n');
    });

    it('keeps CRLF line ends', () => {
      expect(stripMarkdown('# A\r\n**b**\r\n```\r\nc\r\n```\r\n')).toBe('A\r\nb\r\nc\r\n');
    });
  });

  describe('inline', () => {
    it('removes emphasis of every kind', () => {
      expect(stripMarkdown('***all*** **bold** __bold__ *it* _it_ ~~gone~~')).toBe('all bold bold it it gone');
    });

    it('removes nested emphasis', () => {
      expect(stripMarkdown('**bold with *italic* inside**')).toBe('bold with italic inside');
    });

    it('keeps stars and underscores that are not emphasis', () => {
      expect(stripMarkdown('2 * 3 * 4 = 24, snake_case_name, a*b, file_name.txt')).toBe(
        '2 * 3 * 4 = 24, snake_case_name, a*b, file_name.txt',
      );
    });

    it('keeps inline code content literally', () => {
      expect(stripMarkdown('run `rm -rf *.tmp` then ``a `b` c`` and `__init__`')).toBe(
        'run rm -rf *.tmp then a `b` c and __init__',
      );
    });

    it('writes links as text (url)', () => {
      expect(stripMarkdown('See [the docs](https://x.example/a_b_c "Title") now.')).toBe(
        'See the docs (https://x.example/a_b_c) now.',
      );
    });

    it('keeps a link URL with parentheses whole', () => {
      expect(stripMarkdown('[Wiki](https://en.wikipedia.org/wiki/Foo_(bar))')).toBe(
        'Wiki (https://en.wikipedia.org/wiki/Foo_(bar))',
      );
    });

    it('strips emphasis inside link text but not inside its URL', () => {
      expect(stripMarkdown('[**bold** link](https://x.example/*a*)')).toBe('bold link (https://x.example/*a*)');
    });

    it('replaces images by their alt text', () => {
      expect(stripMarkdown('Look: ![a red _car_](car.png "Car") here')).toBe('Look: a red car here');
    });

    it('keeps bare URLs and autolinks literally', () => {
      expect(stripMarkdown('Go to <https://a.example/x_y_z> or https://b.example/__init__')).toBe(
        'Go to https://a.example/x_y_z or https://b.example/__init__',
      );
    });

    it('keeps the text of reference links', () => {
      expect(stripMarkdown('see [the guide][1]')).toBe('see the guide');
    });

    it('unescapes backslash escapes', () => {
      expect(stripMarkdown('\\*not emphasis\\* and 5\\_000')).toBe('*not emphasis* and 5_000');
    });

    it('leaves text without Markdown unchanged', () => {
      const text = 'Hello! The answer is 42 (roughly), says Ada: "yes".\nNext line.\n';
      expect(stripMarkdown(text)).toBe(text);
    });
  });

  describe('streamed', () => {
    it('strips a whole document', () => {
      expect(stripMarkdown(SAMPLE)).toBe(SAMPLE_PLAIN);
    });

    it('gives the same text whatever the deltas, one character at a time included', () => {
      const everyCharacter = Array.from({ length: SAMPLE.length - 1 }, (_, i) => i + 1);
      expect(streamed(SAMPLE, everyCharacter)).toBe(SAMPLE_PLAIN);
      for (let seed = 1; seed <= 50; seed++) {
        const cuts: number[] = [];
        let at = 0;
        while ((at += 1 + ((seed * 7919 + at * 31) % 13)) < SAMPLE.length) cuts.push(at);
        expect(streamed(SAMPLE, cuts)).toBe(SAMPLE_PLAIN);
      }
    });

    it('gives the same text as stripping it whole, for documents mixing prose and every construct', () => {
      const documents = [
        SAMPLE,
        'Plain prose, with commas; and more words.\nSecond line **bold** and _it_ here\r\nThird `code` end',
        '   indented prose line \n    four spaces\n\ttab start *x* y\nword_with_underscores and snake_case\n',
        'A line ending in a star *\n* bullet\n+ plus\n1. one\nText [link](http://x.example/a_(b)) after\n',
        'Heading\n===\nNot ~~struck~~ but \\*escaped\\* text <https://a.example/q?a=1_2> done\n',
        'Mixed 会議 text ** not bold ** and *a*b and __x__y __z__ end\nhttp://bare.example/a*b*c tail',
        'x\uE000 y *b* and more\nplain words then \uE001 and _it_ here\n',
      ];
      for (const text of documents) {
        // Every line complete: the whole document is stripped line by line, the streamed one also in parts.
        const document = text.endsWith('\n') ? text : `${text}\n`;
        const whole = stripMarkdown(document);
        const everyCharacter = Array.from({ length: document.length - 1 }, (_, i) => i + 1);
        expect(streamed(document, everyCharacter)).toBe(whole);
        for (let seed = 1; seed <= 40; seed++) {
          const cuts: number[] = [];
          let at = 0;
          while ((at += 1 + ((seed * 7919 + at * 31) % 11)) < document.length) cuts.push(at);
          expect(streamed(document, cuts)).toBe(whole);
        }
      }
    });

    it('handles a marker split across deltas', () => {
      expect(streamed('**bo', [2])).toBe('**bo');
      expect(streamed('before **bold** after\n', [8, 9, 13, 14])).toBe('before bold after\n');
      expect(streamed('```mermaid\ngraph\n```\nx\n', [1, 2, 5, 12])).toBe('x\n');
    });

    it('releases complete lines at once, and of an unfinished line the words before any Markdown', () => {
      const stripper = new MarkdownStripper();
      expect(stripper.push('# Head')).toBe('');
      expect(stripper.push('ing\nA **b')).toBe('Heading\nA ');
      expect(stripper.push('old** c')).toBe('');
      expect(stripper.flush()).toBe('bold c');
      expect(stripper.flush()).toBe('');
    });

    it('streams a prose line word by word, holding only an unfinished word', () => {
      const stripper = new MarkdownStripper();
      expect(stripper.push('The plan')).toBe('The ');
      expect(stripper.push(' for Tues')).toBe('plan for ');
      expect(stripper.push('day is set.')).toBe('Tuesday is ');
      expect(stripper.push('\nNext')).toBe('set.\n');
      expect(stripper.flush()).toBe('Next');
    });

    it('holds a line that may be a block construct until it ends', () => {
      for (const start of [
        '# Title here ',
        '- item one ',
        '* item one ',
        '> quoted text ',
        '``` ts ',
        '--- ',
        '=== ',
      ]) {
        const stripper = new MarkdownStripper();
        expect(stripper.push(start)).toBe('');
      }
      const indented = new MarkdownStripper();
      expect(indented.push('   ')).toBe('');
      expect(indented.push('# Title ')).toBe('');
    });

    it('holds the rest of a line from the word where inline Markdown may start', () => {
      const stripper = new MarkdownStripper();
      expect(stripper.push('see https://a.example/x_y_z and ')).toBe('see ');
      expect(stripper.push('more\n')).toBe('https://a.example/x_y_z and more\n');
      expect(stripper.push('a `co')).toBe('a ');
      expect(stripper.push('de` b ')).toBe('');
      expect(stripper.flush()).toBe('code b ');
    });

    it('releases nothing of a code block line before it ends', () => {
      const stripper = new MarkdownStripper();
      expect(stripper.push('```\nconst a = 1; ')).toBe('');
      expect(stripper.push('\n```\n')).toBe('const a = 1; \n');
    });

    it('keeps a fence open across a flush (text between two model calls)', () => {
      const stripper = new MarkdownStripper();
      let out = stripper.push('```mermaid\ngraph TD;');
      out += stripper.flush();
      out += stripper.push('\nA-->B\n```\nafter\n');
      expect(out).toBe('after\n');
    });
  });
});
