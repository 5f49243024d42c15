import { HttpsTestServer } from '@fed/testing';
import { type LookupFunction } from 'node:net';
import { type RegistrationError } from './client-metadata';
import { MetadataDocumentFetcher, isMetadataDocumentUrl } from './metadata-document-fetcher';

describe('Client ID Metadata Document fetcher (a real https server on the loopback)', () => {
  let server: HttpsTestServer;
  let fetcher: MetadataDocumentFetcher;
  const now = new Date('2026-12-01T00:00:00Z');
  const documentUrl = () => `${server.origin}/oauth/client.json`;
  const documentOf = (extra: Record<string, unknown> = {}) => ({
    client_id: documentUrl(),
    client_name: 'Example MCP client',
    redirect_uris: ['http://127.0.0.1:33418/callback'],
    ...extra,
  });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('the fetch was not refused');
      },
      (error: RegistrationError) => ({ code: error.code, description: error.description }),
    );

  beforeAll(async () => {
    server = await HttpsTestServer.start();
  });
  beforeEach(() => {
    fetcher = new MetadataDocumentFetcher({
      allowPrivateAddresses: true,
      caFile: server.caFile,
      limits: { timeoutMs: 500, maxBytes: 16 * 1024 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reads a document whose client_id is its URL: a public client of mcp:all and a2a:all, kept for an hour', async () => {
    server.serveJson('/oauth/client.json', documentOf());
    const fetched = await fetcher.fetch(documentUrl(), now);
    expect(fetched.metadata).toEqual({
      name: 'Example MCP client',
      redirectUris: ['http://127.0.0.1:33418/callback'],
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['mcp:all', 'a2a:all'],
    });
    expect(fetched.expiresAt).toEqual(new Date(now.getTime() + 3600_000));
  });

  it('keeps a document for its max-age, clamped to 5 minutes - 24 hours', async () => {
    const keptFor = async (cacheControl: string) => {
      server.serveJson('/oauth/client.json', documentOf(), { 'cache-control': cacheControl });
      return ((await fetcher.fetch(documentUrl(), now)).expiresAt.getTime() - now.getTime()) / 1000;
    };
    expect(await keptFor('public, max-age=7200')).toBe(7200);
    expect(await keptFor('max-age=10')).toBe(300);
    expect(await keptFor('max-age=9999999')).toBe(86_400);
    expect(await keptFor('no-store')).toBe(300);
  });

  it('limits the scopes to what the document asks for, of mcp:all and a2a:all', async () => {
    server.serveJson('/oauth/client.json', documentOf({ scope: 'openid mcp:all offline_access' }));
    expect((await fetcher.fetch(documentUrl(), now)).metadata.scopes).toEqual(['mcp:all']);
  });

  it('refuses a document larger than the size bound, declared or streamed', async () => {
    server.serveJson('/oauth/client.json', documentOf({ client_uri: `https://example.com/${'a'.repeat(20_000)}` }));
    expect(await refusal(fetcher.fetch(documentUrl(), now))).toEqual({
      code: 'invalid_client_metadata',
      description: 'the document is larger than 16384 bytes',
    });
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"client_id":"${'a'.repeat(10_000)}`);
      res.end(`${'b'.repeat(10_000)}"}`);
    };
    expect((await refusal(fetcher.fetch(documentUrl(), now))).description).toBe(
      'the document is larger than 16384 bytes',
    );
  });

  it('gives up on a document that does not arrive within the timeout (a slow body too)', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      // Never ends.
    };
    const started = Date.now();
    expect((await refusal(fetcher.fetch(documentUrl(), now))).description).toBe(
      'the document did not arrive within 500 ms',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses a document whose client_id is not its URL', async () => {
    server.serveJson('/oauth/client.json', documentOf({ client_id: `${server.origin}/other.json` }));
    expect(await refusal(fetcher.fetch(documentUrl(), now))).toEqual({
      code: 'invalid_client_metadata',
      description: "the document's client_id is not its URL",
    });
  });

  it('refuses redirect URIs the operator could not register either (invalid_redirect_uri)', async () => {
    for (const redirectUris of [
      [],
      ['http://example.com/callback'],
      ['https://example.com/cb#x'],
      'https://x.example/cb',
    ]) {
      server.serveJson('/oauth/client.json', documentOf({ redirect_uris: redirectUris }));
      expect((await refusal(fetcher.fetch(documentUrl(), now))).code).toBe('invalid_redirect_uri');
    }
  });

  it('refuses metadata a public MCP client cannot have', async () => {
    for (const extra of [
      { token_endpoint_auth_method: 'client_secret_basic' },
      { grant_types: ['client_credentials'] },
      { grant_types: ['refresh_token'] },
      { response_types: ['token'] },
      { scope: 'chat:exec mcp:all' },
      { scope: 'openid' },
      { client_name: 'line\nbreak' },
    ]) {
      server.serveJson('/oauth/client.json', documentOf(extra));
      expect(await refusal(fetcher.fetch(documentUrl(), now))).toMatchObject({ code: 'invalid_client_metadata' });
    }
  });

  it('refuses what is not a JSON document: another media type, malformed, nested, not an object', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(JSON.stringify(documentOf()));
    };
    expect((await refusal(fetcher.fetch(documentUrl(), now))).description).toBe(
      'the document is not served as application/json',
    );
    for (const body of ['{"client_id":', '[[[[[[[[]]]]]]]]', '"a string"', 'null']) {
      server.serveJson('/oauth/client.json', body);
      expect((await refusal(fetcher.fetch(documentUrl(), now))).code).toBe('invalid_client_metadata');
    }
  });

  it('follows no redirect, and refuses an answer other than 200', async () => {
    server.handler = (_req, res) => {
      res.writeHead(302, { location: `${server.origin}/oauth/client.json` });
      res.end();
    };
    expect((await refusal(fetcher.fetch(documentUrl(), now))).description).toBe(
      'the document URL redirects (not followed)',
    );
    server.serveJson('/elsewhere', {});
    expect((await refusal(fetcher.fetch(documentUrl(), now))).description).toBe('HTTP 404');
  });

  it('refuses a client_id that is not an https URL with a path', async () => {
    for (const id of [
      `http://localhost/oauth/client.json`,
      `${server.origin}/`,
      `${server.origin}/client.json#frag`,
      `https://user:pw@localhost/client.json`,
      `${server.origin}/a/../client.json`,
      `https://localhost/${'a'.repeat(2100)}`,
      'not a url',
    ]) {
      expect(isMetadataDocumentUrl(id)).toBe(false);
      expect((await refusal(fetcher.fetch(id, now))).code).toBe('invalid_client_metadata');
    }
    expect(isMetadataDocumentUrl('https://app.example.com/oauth/client.json')).toBe(true);
  });

  it('reports a fetch that fails: nothing listening, an untrusted certificate', async () => {
    expect((await refusal(fetcher.fetch('https://localhost:1/client.json', now))).description).toBe(
      'the document could not be fetched: ECONNREFUSED',
    );
    server.serveJson('/oauth/client.json', documentOf());
    const untrusting = new MetadataDocumentFetcher({ allowPrivateAddresses: true });
    expect((await refusal(untrusting.fetch(documentUrl(), now))).description).toMatch(
      /^the document could not be fetched: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/,
    );
  });

  describe('without OIDC_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES (SSRF)', () => {
    const guarded = (lookup?: LookupFunction) =>
      new MetadataDocumentFetcher({ allowPrivateAddresses: false, caFile: server.caFile, lookup });

    it('refuses a private, loopback or link-local literal before connecting', async () => {
      for (const host of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '[::1]', '[fd00::1]', '[::ffff:7f00:1]']) {
        const { description } = await refusal(guarded().fetch(`https://${host}/client.json`, now));
        expect(description).toMatch(
          /is an? (loopback|private|link-local) address: metadata documents must be on public/,
        );
      }
    });

    it('refuses a name that resolves to a non-public address (any of its addresses)', async () => {
      server.serveJson('/oauth/client.json', documentOf());
      expect((await refusal(guarded().fetch(documentUrl(), now))).description).toMatch(
        /^the document could not be fetched: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
      );
      const mixed: LookupFunction = (_host, _options, callback) =>
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: '93.184.215.14', family: 4 },
          { address: '10.0.0.7', family: 4 },
        ]);
      expect((await refusal(guarded(mixed).fetch('https://rebind.example/client.json', now))).description).toBe(
        'the document could not be fetched: rebind.example resolves to 10.0.0.7, a private address',
      );
    });
  });
});
