import { type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { MAX_JSON_CONTAINERS, MAX_JSON_DEPTH, readJsonBody } from './request-body';

function request(body: string | Buffer, headers: Record<string, string> = {}): IncomingMessage {
  const stream = new PassThrough();
  stream.end(body);
  return Object.assign(stream, { headers }) as unknown as IncomingMessage;
}

describe('readJsonBody', () => {
  it('parses a body within the limits', async () => {
    expect(await readJsonBody(request('{"a":[1,{"b":"[[[{{{"}]}'), 1000)).toEqual({
      kind: 'json',
      value: { a: [1, { b: '[[[{{{' }] },
    });
  });

  it('refuses a body over the limit, declared or streamed, without reading it whole', async () => {
    expect(await readJsonBody(request('{}', { 'content-length': '5000' }), 1000)).toEqual({ kind: 'too_large' });
    expect(await readJsonBody(request(`"${'x'.repeat(2000)}"`), 1000)).toEqual({ kind: 'too_large' });
  });

  it('refuses deep nesting and too many containers on the raw bytes, brackets inside strings not counted', async () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(await readJsonBody(request(deep), 1e6)).toMatchObject({ kind: 'too_complex' });
    const wide = `[${Array.from({ length: MAX_JSON_CONTAINERS + 1 }, () => '{}').join(',')}]`;
    expect(await readJsonBody(request(wide), 1e6)).toMatchObject({ kind: 'too_complex' });
    const inStrings = JSON.stringify({ text: '['.repeat(MAX_JSON_DEPTH * 2), quote: 'a\\"[[[' });
    expect(await readJsonBody(request(inStrings), 1e6)).toMatchObject({ kind: 'json' });
  });

  it('tells unparseable JSON apart', async () => {
    expect(await readJsonBody(request('{"a":'), 1000)).toEqual({ kind: 'not_json' });
  });

  it('says aborted when the client goes away mid-body', async () => {
    const stream = new PassThrough();
    const req = Object.assign(stream, { headers: {} }) as unknown as IncomingMessage;
    stream.write('{"a":');
    setImmediate(() => stream.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
    expect(await readJsonBody(req, 1000)).toEqual({ kind: 'aborted' });
  });
});
