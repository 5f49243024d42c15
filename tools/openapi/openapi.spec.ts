import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type OpenApiDocument, generateOpenApi } from './openapi';

const root = path.resolve(__dirname, '../..');
const documentPath = path.join(root, 'docs/openapi.json');
const validatorCli = path.join(root, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');

// The validator is an ES module that Jest's runtime cannot load: it runs as the CLI it ships, in Node itself.
function validate(document: unknown): { valid: boolean; errors?: unknown } {
  const dir = mkdtempSync(path.join(tmpdir(), 'fed-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = spawnSync(process.execPath, [validatorCli, file], { encoding: 'utf8' });
    return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the admin API OpenAPI document (docs/openapi.json)', () => {
  const document = generateOpenApi({ root, pathPrefix: '/api/v1/admin' });
  const generated = `${JSON.stringify(document, null, 2)}\n`;

  // CI's drift check. `npm run openapi` rewrites the file.
  it('is what the controllers generate (run `npm run openapi` after changing a route, DTO or response)', () => {
    if (process.env['UPDATE_OPENAPI'] === '1') writeFileSync(documentPath, generated);
    expect(readFileSync(documentPath, 'utf8')).toBe(generated);
  });

  it('is a valid OpenAPI 3.1 document (the official schema), and a broken one is not', () => {
    expect(validate(document)).toEqual({ valid: true });
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, object>> };
    broken.paths['/api/v1/admin/users']!['get'] = { responses: 'none' };
    expect(validate(broken).valid).toBe(false);
  });

  it("names every spec route of document 3's admin table with its scopes", () => {
    const scopes = (method: string, route: string) =>
      (document.paths[route]?.[method] as { 'x-scopes'?: string[] } | undefined)?.['x-scopes'];
    expect(scopes('get', '/api/v1/admin/users')).toEqual(['users:read', 'users:manage']);
    expect(scopes('delete', '/api/v1/admin/users/{userId}')).toEqual(['users:manage']);
    expect(scopes('put', '/api/v1/admin/users/{userId}/role')).toEqual(['users:manage']);
    expect(scopes('post', '/api/v1/admin/memory/query')).toEqual(['sharedmemory:query']);
    for (const log of ['audit-logs', 'llm-logs', 'llm-gateway-logs', 'access-logs', 'guardrail-alerts']) {
      expect(scopes('get', `/api/v1/admin/${log}`)).toEqual(['logs:read']);
    }
  });

  it('describes the pagination envelope and the page query as document 3 does', () => {
    const list = document.components.schemas['AuditLogList'] as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(list.required).toEqual(expect.arrayContaining(['auditLogs', 'total', 'limit', 'page', 'hasMore']));
    const parameters = (
      document.paths['/api/v1/admin/audit-logs']!['get'] as { parameters: { name: string; schema: object }[] }
    ).parameters;
    expect(parameters.find((p) => p.name === 'limit')?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
    expect(parameters.find((p) => p.name === 'from')?.schema).toEqual({ type: 'string', format: 'date' });
  });

  // docs/security.md, "Who may do what": one table says who may call each admin route; it must say what the code does.
  it('gives every admin route the scopes of its row in docs/security.md', () => {
    const markdown = readFileSync(path.join(root, 'docs/security.md'), 'utf8');
    const section = markdown.split('### Who may do what')[1]!.split('\n### ')[0]!;
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| Resource') && !line.startsWith('|---'))
      .map((line) => {
        const [resource, routes, scopeCell] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
        const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
        return {
          resource: resource!,
          prefixes: ticks(routes!)
            .filter((route) => route.startsWith('/'))
            .map((route) => (route.startsWith('/api/') ? route : `/api/v1/admin${route}`)),
          scopes: new Set(ticks(scopeCell!)),
          seen: new Set<string>(),
        };
      });
    expect(rows.length).toBeGreaterThan(10);
    const unlisted: string[] = [];
    const wrong: string[] = [];
    for (const [route, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const declared = (operation as { 'x-scopes'?: string[] })['x-scopes'] ?? [];
        const row = rows.find((candidate) =>
          candidate.prefixes.some((prefix) => route === prefix || route.startsWith(`${prefix}/`)),
        );
        if (!row) {
          unlisted.push(`${method.toUpperCase()} ${route}`);
          continue;
        }
        for (const scope of declared) {
          row.seen.add(scope);
          if (!row.scopes.has(scope)) wrong.push(`${method.toUpperCase()} ${route}: ${scope} not in "${row.resource}"`);
        }
      }
    }
    expect(unlisted).toEqual([]);
    expect(wrong).toEqual([]);
    // And no row names a scope that none of its routes asks for.
    expect(rows.map((row) => [row.resource, [...row.scopes].sort()])).toEqual(
      rows.map((row) => [row.resource, [...row.seen].sort()]),
    );
  });

  it('refers every error status to the error envelope', () => {
    const envelope = (document as OpenApiDocument).components.schemas['ErrorEnvelope'] as { required: string[] };
    expect(envelope.required).toEqual(['error']);
    const approve = document.paths['/api/v1/admin/users/{userId}/approve']!['post'] as {
      responses: Record<string, unknown>;
    };
    expect(Object.keys(approve.responses)).toEqual(['200', '400', '401', '403', '404']);
    expect(approve.responses['404']).toEqual({ $ref: '#/components/responses/Error' });
  });
});
