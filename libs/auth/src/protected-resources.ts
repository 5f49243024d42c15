// RFC 8707 resource indicators; the URL must equal the MCP metadata's `resource` byte for byte (RFC 9728 3.3).
export const PROTECTED_RESOURCE_PATHS = { mcp: '/api/v1/mcp', a2a: '/api/v1/a2a' } as const;

export type ProtectedResource = keyof typeof PROTECTED_RESOURCE_PATHS;

/** The resource indicator of one endpoint; `publicUrl` is `PUBLIC_URL` (config `http.publicUrl`). */
export function protectedResourceUrl(publicUrl: string, resource: ProtectedResource): string {
  return `${publicUrl}${PROTECTED_RESOURCE_PATHS[resource]}`;
}

export function protectedResourceUrls(publicUrl: string): string[] {
  return Object.keys(PROTECTED_RESOURCE_PATHS).map((name) =>
    protectedResourceUrl(publicUrl, name as ProtectedResource),
  );
}
