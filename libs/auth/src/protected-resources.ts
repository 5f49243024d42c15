/**
 * The platform's protected resources (RFC 8707 resource indicators): a token may be asked for one of
 * them, and then carries its URL as `aud` and is taken by that resource's endpoint only. The URL is
 * `PUBLIC_URL` and the endpoint's path, the same string the MCP protected-resource metadata names as
 * its `resource` (RFC 9728 3.3: a client compares the two byte for byte).
 */
export const PROTECTED_RESOURCE_PATHS = { mcp: '/api/v1/mcp', a2a: '/api/v1/a2a' } as const;

export type ProtectedResource = keyof typeof PROTECTED_RESOURCE_PATHS;

/** The resource indicator of one endpoint; `publicUrl` is `PUBLIC_URL` (config `http.publicUrl`). */
export function protectedResourceUrl(publicUrl: string, resource: ProtectedResource): string {
  return `${publicUrl}${PROTECTED_RESOURCE_PATHS[resource]}`;
}

/** Every resource indicator the authorization server issues tokens for. */
export function protectedResourceUrls(publicUrl: string): string[] {
  return Object.keys(PROTECTED_RESOURCE_PATHS).map((name) =>
    protectedResourceUrl(publicUrl, name as ProtectedResource),
  );
}
