import { MARK_END, MARK_START, toSnippet } from './search-snippet';

const mark = (word: string) => `${MARK_START}${word}${MARK_END}`;
const whole = (marked: string) => ({ marked, cutBefore: false, cutAfter: false });

describe('a search result snippet', () => {
  it('marks the stemmed matches the database found', () => {
    expect(toSnippet(whole(`The tests are ${mark('running')} now.`), 'runs')).toBe(
      'The tests are <mark>running</mark> now.',
    );
  });

  it('marks every literal occurrence of the query, in any letter case, inside words too', () => {
    expect(toSnippet(whole('Deployment, redeployment and DEPLOYMENTS'), 'ploym')).toBe(
      'De<mark>ploym</mark>ent, rede<mark>ploym</mark>ent and DE<mark>PLOYM</mark>ENTS',
    );
    expect(toSnippet(whole('東京の天気を教えてください。'), '天気')).toBe('東京の<mark>天気</mark>を教えてください。');
  });

  it('merges a stemmed and a literal match of the same word into one mark', () => {
    expect(toSnippet(whole(`a ${mark('report')} here`), 'repo')).toBe('a <mark>report</mark> here');
  });

  it('escapes the text, markup included, outside and inside the marks', () => {
    expect(toSnippet(whole(`<script>alert("x") & 'y'</script> ${mark('<b>')}`), 'alert')).toBe(
      '&lt;script&gt;<mark>alert</mark>(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt; <mark>&lt;b&gt;</mark>',
    );
  });

  it('cuts about 160 characters around the first match at word boundaries, with … where text was left out', () => {
    const before = 'word '.repeat(40);
    const after = ' more'.repeat(60);
    const snippet = toSnippet(whole(`${before}${mark('needle')}${after}`), 'needle');
    expect(snippet).toMatch(/^…word .*<mark>needle<\/mark> more.* more…$/);
    const shown = snippet.replace(/<\/?mark>/g, '');
    expect(shown.length).toBeGreaterThan(120);
    expect(shown.length).toBeLessThan(200);
    expect(snippet.indexOf('<mark>')).toBeLessThan(70);
  });

  it('shows the start of the text when the window holds no match, and … when the message goes on', () => {
    expect(toSnippet({ marked: 'Just the start.', cutBefore: false, cutAfter: true }, 'elsewhere')).toBe(
      'Just the start.…',
    );
    expect(toSnippet({ marked: 'middle part', cutBefore: true, cutAfter: true }, 'part')).toBe(
      '…middle <mark>part</mark>…',
    );
  });

  it('turns line breaks and runs of white space into single spaces', () => {
    expect(toSnippet(whole('first line\n\n  second\tline'), 'second')).toBe('first line <mark>second</mark> line');
  });

  it('never cuts a character outside the basic plane in two', () => {
    const text = `${'😀'.repeat(120)} ${mark('target')}`;
    const snippet = toSnippet(whole(text), 'target');
    expect(snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(snippet).toContain('<mark>target</mark>');
  });
});
