import { addressProblem, parseBoundedJson, publicAddressLookup } from '@fed/server';
import { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { type LookupFunction, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { MAX_METADATA_CLIENT_ID } from '@fed/identity/internal';
import { type ClientMetadata, RegistrationError, checkClientMetadata } from './client-metadata';

/** Documents are a few hundred bytes; these leave room and nothing more. */
export interface MetadataFetchLimits {
  /** Connect, TLS and the whole body, end to end. */
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_METADATA_FETCH_LIMITS: MetadataFetchLimits = { timeoutMs: 5000, maxBytes: 16 * 1024 };

/** Its max-age, clamped (MCP client ids are long-lived). */
const MIN_CACHE_SECONDS = 300;
const MAX_CACHE_SECONDS = 86_400;
const DEFAULT_CACHE_SECONDS = 3600;
/** A document is a flat object of a dozen members: deeper or bigger JSON is not one. */
const DOCUMENT_BOUNDS = { maxDepth: 4, maxContainers: 64 };

export interface MetadataFetcherOptions {
  /** OIDC_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES: development and tests only. */
  allowPrivateAddresses: boolean;
  /** OIDC_CLIENT_METADATA_CA_FILE: extra authorities (PEM), trusted besides the system's. */
  caFile?: string;
  limits?: MetadataFetchLimits;
  lookup?: LookupFunction;
}

export interface FetchedMetadataDocument {
  metadata: ClientMetadata;
  expiresAt: Date;
}

/** draft-ietf-oauth-client-id-metadata-document: https, a path besides `/`, no fragment, credentials, dot segments. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (clientId.length > MAX_METADATA_CLIENT_ID || !clientId.startsWith('https://')) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  // The id is compared byte for byte with the document's: it must be the URL exactly as parsed.
  return (
    url.href === clientId &&
    url.pathname !== '/' &&
    !clientId.includes('#') &&
    url.username === '' &&
    url.password === '' &&
    !/\/\.\.?(\/|$)/.test(url.pathname)
  );
}

/**
 * A request on a stranger's behalf: https only, no redirects, one deadline, a size bound. The host must be on
 * public addresses, checked for a literal, at resolution and on the connected peer, so DNS rebinding is refused.
 */
export class MetadataDocumentFetcher {
  private readonly ca: string[];
  private readonly limits: MetadataFetchLimits;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: MetadataFetcherOptions) {
    this.ca = options.caFile ? [...rootCertificates, readFileSync(options.caFile, 'utf8')] : [...rootCertificates];
    this.limits = options.limits ?? DEFAULT_METADATA_FETCH_LIMITS;
    this.lookup = options.lookup ?? (dnsLookup as LookupFunction);
  }

  /** A RegistrationError says why not. */
  async fetch(clientId: string, now = new Date()): Promise<FetchedMetadataDocument> {
    if (!isMetadataDocumentUrl(clientId)) {
      throw new RegistrationError(
        'invalid_client_metadata',
        'a client_id URL must be https with a path, without fragment or credentials',
      );
    }
    const { body, cacheControl } = await this.get(new URL(clientId));
    const parsed = parseBoundedJson(body, DOCUMENT_BOUNDS);
    if (parsed.kind !== 'json') throw new RegistrationError('invalid_client_metadata', 'the document is not JSON');
    const document = parsed.value as Record<string, unknown> | null;
    if (typeof document !== 'object' || document === null || document.client_id !== clientId) {
      throw new RegistrationError('invalid_client_metadata', "the document's client_id is not its URL");
    }
    const metadata = checkClientMetadata(document, new URL(clientId).host);
    return { metadata, expiresAt: new Date(now.getTime() + cacheSeconds(cacheControl) * 1000) };
  }

  private get(url: URL): Promise<{ body: Buffer; cacheControl: string | undefined }> {
    const refuse = (description: string) => new RegistrationError('invalid_client_metadata', description);
    if (!this.options.allowPrivateAddresses) {
      const literal = addressProblem(url.hostname);
      if (literal) return Promise.reject(refuse(`${literal}: metadata documents must be on public addresses`));
    }
    const { timeoutMs, maxBytes } = this.limits;
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (error: RegistrationError) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        reject(error);
      };
      const deadline = setTimeout(() => fail(refuse(`the document did not arrive within ${timeoutMs} ms`)), timeoutMs);
      const req = request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        ca: this.ca,
        agent: false,
        lookup: this.options.allowPrivateAddresses ? this.lookup : publicAddressLookup(this.lookup, nonPublicAddress),
      });
      req.on('socket', (socket: Socket) => {
        socket.once('secureConnect', () => {
          // Where the bytes actually go, whatever resolved the name.
          const problem = this.options.allowPrivateAddresses ? undefined : addressProblem(socket.remoteAddress ?? '');
          if (problem) fail(refuse(`${problem}: metadata documents must be on public addresses`));
        });
      });
      req.on('error', (error) => fail(refuse(`the document could not be fetched: ${reasonOf(error)}`)));
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          const redirect = res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400;
          return fail(refuse(redirect ? 'the document URL redirects (not followed)' : `HTTP ${res.statusCode}`));
        }
        if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(res.headers['content-type'] ?? '')) {
          return fail(refuse('the document is not served as application/json'));
        }
        const tooLarge = () => fail(refuse(`the document is larger than ${maxBytes} bytes`));
        if (Number(res.headers['content-length'] ?? 0) > maxBytes) return tooLarge();
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return tooLarge();
          chunks.push(chunk);
        });
        res.on('error', (error) => fail(refuse(`the document could not be read: ${reasonOf(error)}`)));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve({ body: Buffer.concat(chunks, size), cacheControl: res.headers['cache-control'] });
        });
      });
      req.end();
    });
  }
}

function nonPublicAddress(problem: string): Error {
  return Object.assign(new Error(problem), { code: 'ERR_NON_PUBLIC_ADDRESS' });
}

function reasonOf(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ERR_NON_PUBLIC_ADDRESS' ? error.message : (code ?? error.message).slice(0, 200);
}

function cacheSeconds(header: string | undefined): number {
  if (!header) return DEFAULT_CACHE_SECONDS;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(header)) return MIN_CACHE_SECONDS;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d{1,10})"?\s*(,|$)/i.exec(header);
  if (!maxAge) return DEFAULT_CACHE_SECONDS;
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, Number(maxAge[2])));
}
