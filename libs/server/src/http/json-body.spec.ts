import { type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { MAX_JSON_CONTAINERS, MAX_JSON_DEPTH, jsonRefusal, parseBoundedJson, readJsonBody } from './json-body';

function request(body: string | Buffer, headers: Record<string, string> = {}): IncomingMessage {
  const stream = new PassThrough();
  stream.end(body);
  return Object.assign(stream, { headers }) as unknown as IncomingMessage;
}

describe('JSON bodies are bounded before they are parsed', () => {
  describe('readJsonBody (the fast routes: A2A, MCP)', () => {
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

  describe('jsonRefusal', () => {
    it('refuses nesting deeper than 64 levels, arrays or objects, and lets 64 through', () => {
      const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
      const objects = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;
      expect(jsonRefusal(arrays(MAX_JSON_DEPTH))).toBeUndefined();
      expect(jsonRefusal(objects(MAX_JSON_DEPTH))).toBeUndefined();
      expect(jsonRefusal(arrays(MAX_JSON_DEPTH + 1))).toBe('the request nests deeper than 64 levels');
      expect(jsonRefusal(objects(MAX_JSON_DEPTH + 1))).toBe('the request nests deeper than 64 levels');
    });

    it('refuses a 100,000-deep field before any parser walks it', () => {
      expect(jsonRefusal(`{"messages":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toMatch(/deeper/);
      expect(jsonRefusal(`{"title":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`)).toMatch(/deeper/);
    });

    it('refuses more than 10,000 objects and arrays in one body, and lets 10,000 through', () => {
      const wide = (n: number) => `[${Array.from({ length: n - 1 }, () => '{}').join(',')}]`;
      expect(jsonRefusal(wide(MAX_JSON_CONTAINERS))).toBeUndefined();
      expect(jsonRefusal(wide(MAX_JSON_CONTAINERS + 1))).toBe('the request holds more than 10000 objects and arrays');
      expect(jsonRefusal(wide(20), { maxDepth: 64, maxContainers: 19 })).toMatch(/more than 19/);
    });

    it('counts no bracket inside a string, escaped quotes and backslashes included', () => {
      const inStrings = JSON.stringify({ text: '['.repeat(MAX_JSON_DEPTH * 2), quote: 'a\\"[[[', end: '\\' });
      expect(jsonRefusal(inStrings)).toBeUndefined();
      expect(parseBoundedJson(inStrings)).toMatchObject({ kind: 'json' });
    });

    it.each([
      ['the same name twice', '{"role":"user","role":"admin"}', 'role'],
      ['a name and its escaped spelling ("\\u0061" is "a")', '{"a":1,"\\u0061":2}', 'a'],
      ['an escaped quote in both', '{"x\\"y":1, "x\\u0022y":2}', 'x"y'],
      ['a non-ASCII name', '{"é":1,"\\u00e9":2}', 'é'],
      ['in a nested object', '{"outer":{"client_id":"a","n":[1,{"k":1}],"client_id":"b"}}', 'client_id'],
      ['after a nested value', '{"a":{"b":[{"c":1}]},"z":[],"a":2}', 'a'],
      [
        'in an object with many members',
        `{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`,
        'k7',
      ],
      ['the name __proto__', '{"__proto__":1,"__proto__":2}', '__proto__'],
    ])('refuses an object that repeats a member name (I-JSON, RFC 7493): %s', (_case, text, name) => {
      expect(jsonRefusal(text)).toBe(`the request repeats the member name ${JSON.stringify(name)} in one object`);
    });

    it.each([
      ['the same name in two objects', '{"a":{"x":1},"b":{"x":2}}'],
      ['the same name in objects of an array', '[{"role":"user"},{"role":"admin"}]'],
      ['a name that is also a value', '{"role":"role","x":["role","role"]}'],
      ['names differing by case or escape of another character', '{"a":1,"A":2,"\\u0062":3}'],
      ['a string containing a colon and a comma', '{"a":"x\\",\\"a\\":1","b":2}'],
    ])('lets through %s', (_case, text) => {
      expect(jsonRefusal(text)).toBeUndefined();
    });

    it('leaves malformed JSON to the parser', () => {
      expect(parseBoundedJson('{"a":1,')).toEqual({ kind: 'not_json' });
      expect(parseBoundedJson('{"a\\x":1}')).toEqual({ kind: 'not_json' });
      expect(parseBoundedJson('"unterminated')).toEqual({ kind: 'not_json' });
    });
  });
});
