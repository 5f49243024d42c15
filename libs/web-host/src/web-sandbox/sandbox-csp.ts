// The Content-Security-Policy of the UI resource sandbox page, built from what the resource declared in
// `_meta.ui.csp` (MCP Apps 2026-01-26, "UI Resource Format"), which the app passes in the page's query. Every
// declared source is checked here: the header is built only from sources of a fixed, quote-free shape.

/** The four lists of `McpUiResourceCsp`. */
export const DECLARED_CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

export type DeclaredCspField = (typeof DECLARED_CSP_FIELDS)[number];
export type DeclaredCsp = Partial<Record<DeclaredCspField, string[]>>;

/** Declared lists longer than this are refused (a real app names a handful). */
export const MAX_SOURCES_PER_FIELD = 32;
/** Of the `csp` query value. */
export const MAX_DECLARED_CSP_LENGTH = 8192;

export class SandboxCspError extends Error {}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/**
 * `scheme://host[:port]`: http(s) or ws(s), a DNS name or a bracketed IPv6 address, no path. A wildcard only as
 * the whole first label (`https://*.example.com`, as the spec allows), and above at least two labels.
 */
const SOURCE = new RegExp(
  `^(https?|wss?)://(?:(\\*\\.)?(${LABEL}(?:\\.${LABEL})*)|(\\[[0-9a-f:.]{2,45}\\]))(?::([0-9]{1,5}))?$`,
);

interface Source {
  scheme: string;
  wildcard: boolean;
  host: string;
  port?: number;
}

function parseSource(raw: string): Source | undefined {
  const match = SOURCE.exec(raw);
  if (!match) return undefined;
  const [, scheme = '', wildcard, name, ipv6, port] = match;
  const host = name ?? ipv6 ?? '';
  if (wildcard && host.split('.').length < 2) return undefined;
  const portNumber = port === undefined ? undefined : Number(port);
  if (portNumber !== undefined && (portNumber < 1 || portNumber > 65535)) return undefined;
  return { scheme, wildcard: wildcard !== undefined, host, port: portNumber };
}

const defaultPort = (scheme: string) => (scheme === 'https' || scheme === 'wss' ? 443 : 80);

/**
 * Whether a browser would let `source` reach `origin`. CSP matches `http` sources against https and ws(s) too,
 * and upgrades port 80 to 443, so the scheme is not compared and a portless http source covers both ports.
 */
export function sourceCovers(source: string, origin: string): boolean {
  const parsed = parseSource(source);
  if (!parsed) return false;
  const target = new URL(origin);
  const targetHost = target.hostname.toLowerCase();
  const hostCovered = parsed.wildcard ? targetHost.endsWith(`.${parsed.host}`) : targetHost === parsed.host;
  if (!hostCovered) return false;
  const targetPort = target.port ? Number(target.port) : defaultPort(target.protocol.replace(/:$/, ''));
  const ports = parsed.port !== undefined ? [parsed.port] : defaultPort(parsed.scheme) === 80 ? [80, 443] : [443];
  return ports.includes(targetPort);
}

/**
 * The resource's declared CSP from the page's `csp` query value (JSON of `McpUiResourceCsp`), every source
 * checked; `undefined` when none is given. `protectedOrigins` (the app's, the sandbox's, the sign-in pages')
 * may not be named: a resource must never reach the platform itself.
 */
export function parseDeclaredCsp(
  raw: string | undefined,
  protectedOrigins: readonly string[],
): DeclaredCsp | undefined {
  if (raw === undefined) return undefined;
  if (raw.length > MAX_DECLARED_CSP_LENGTH)
    throw new SandboxCspError(`csp is over ${MAX_DECLARED_CSP_LENGTH} characters`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new SandboxCspError('csp is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SandboxCspError('csp is not an object');
  }
  const declared: DeclaredCsp = {};
  for (const [field, list] of Object.entries(value)) {
    if (!(DECLARED_CSP_FIELDS as readonly string[]).includes(field)) {
      throw new SandboxCspError(`csp has an unknown field ${JSON.stringify(field.slice(0, 40))}`);
    }
    if (!Array.isArray(list) || list.length > MAX_SOURCES_PER_FIELD) {
      throw new SandboxCspError(`csp.${field} is not an array of at most ${MAX_SOURCES_PER_FIELD} origins`);
    }
    declared[field as DeclaredCspField] = list.map((entry: unknown) => {
      const source = typeof entry === 'string' ? entry.toLowerCase() : '';
      if (!parseSource(source)) {
        throw new SandboxCspError(`csp.${field} has ${JSON.stringify(String(entry).slice(0, 100))}, not an origin`);
      }
      const reached = protectedOrigins.find((origin) => sourceCovers(source, origin));
      if (reached) throw new SandboxCspError(`csp.${field} may not name ${reached}, the platform's own origin`);
      return source;
    });
  }
  return declared;
}

/**
 * The header: the declared sources where the spec maps them, its restrictive default for the rest (and as a
 * whole when nothing is declared), and framing by the app's origin only.
 */
export function sandboxCsp(declared: DeclaredCsp | undefined, appOrigin: string): string {
  const sources = (field: DeclaredCspField) => declared?.[field] ?? [];
  const resources = sources('resourceDomains');
  const withResources = (...own: string[]) => [...own, ...resources].join(' ');
  const orElse = (field: DeclaredCspField, fallback: string) =>
    sources(field).length > 0 ? sources(field).join(' ') : fallback;
  return [
    "default-src 'none'",
    `script-src ${withResources("'self'", "'unsafe-inline'")}`,
    `style-src ${withResources("'self'", "'unsafe-inline'")}`,
    `img-src ${withResources("'self'", 'data:')}`,
    `media-src ${withResources("'self'", 'data:')}`,
    ...(resources.length > 0 ? [`font-src ${resources.join(' ')}`] : []),
    `connect-src ${orElse('connectDomains', "'none'")}`,
    `frame-src ${orElse('frameDomains', "'none'")}`,
    `base-uri ${orElse('baseUriDomains', "'self'")}`,
    "object-src 'none'",
    "form-action 'none'",
    `frame-ancestors ${appOrigin}`,
  ].join('; ');
}
