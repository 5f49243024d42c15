import { freePort } from '@fed/testing';
import { type KeyObject, createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

/** `forged`: another key under the same `kid`. */
export type IdTokenSigning = 'genuine' | 'forged' | 'none' | 'HS256';

export interface ScriptedIdp {
  /** `http://127.0.0.1:<port>`: a plain-http loopback issuer, where TLS does not vouch for the token. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  signing: IdTokenSigning;
  /** The claims of the ID token and of userinfo. */
  claims: Record<string, unknown>;
  stop(): Promise<void>;
}

const KID = 'signing-key-1';

/**
 * Signs in at once and answers an ID token signed as `signing` says. Its metadata offers `none` and HS256, as a
 * hostile provider's could: the relying party must refuse them by its own list.
 */
export async function startScriptedIdp(options: { claims: Record<string, unknown> }): Promise<ScriptedIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'federation-broker';
  const clientSecret = randomBytes(24).toString('base64url');
  const genuine = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const codes = new Map<string, { nonce?: string }>();
  const state: ScriptedIdp = {
    issuer,
    clientId,
    clientSecret,
    signing: 'genuine',
    claims: options.claims,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const idToken = (nonce: string | undefined): string => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { iss: issuer, aud: clientId, iat: now, exp: now + 300, nonce, ...state.claims };
    const alg = state.signing === 'none' || state.signing === 'HS256' ? state.signing : 'RS256';
    const header = { alg, typ: 'JWT', ...(alg === 'RS256' ? { kid: KID } : {}) };
    const input = `${encode(header)}.${encode(payload)}`;
    if (state.signing === 'none') return `${input}.`;
    if (state.signing === 'HS256')
      return `${input}.${createHmac('sha256', clientSecret).update(input).digest('base64url')}`;
    const key: KeyObject = state.signing === 'forged' ? attacker.privateKey : genuine.privateKey;
    return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
  };

  const routes: Record<string, (req: IncomingMessage, url: URL, body: URLSearchParams) => Answer> = {
    '/.well-known/openid-configuration': () =>
      json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'HS256', 'none'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        code_challenge_methods_supported: ['S256'],
      }),
    '/jwks': () =>
      json(200, { keys: [{ ...genuine.publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'RS256' }] }),
    '/authorize': (_req, url) => {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { nonce: url.searchParams.get('nonce') ?? undefined });
      const back = new URL(url.searchParams.get('redirect_uri') as string);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return { status: 303, headers: { location: back.href }, body: '' };
    },
    '/token': (req, _url, body) => {
      // client_secret_basic: each part form-urlencoded before base64 (RFC 6749, section 2.3.1).
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
      if (id !== clientId || secret !== clientSecret) return json(401, { error: 'invalid_client' });
      const grant = codes.get(body.get('code') ?? '');
      if (body.get('grant_type') !== 'authorization_code' || !grant) return json(400, { error: 'invalid_grant' });
      codes.delete(body.get('code') as string);
      return json(200, {
        access_token: randomBytes(16).toString('base64url'),
        token_type: 'Bearer',
        expires_in: 300,
        id_token: idToken(grant.nonce),
      });
    },
    '/userinfo': () => json(200, state.claims),
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', issuer);
      const route = routes[url.pathname];
      const answer = route
        ? route(req, url, new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
        : json(404, { error: 'not_found' });
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  server.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return state;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function json(status: number, body: unknown): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
