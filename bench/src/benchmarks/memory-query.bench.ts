import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { runMigrations } from '@fed/persistence';
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { Client } from 'pg';
import { type ChildServer, startAppWithTestIssuer } from '../harness/child-server';
import { type LatencyResult, measureLatency } from '../harness/latency';
import { type Row, printTable, writeResult } from '../harness/report';
import { runSql, withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** A small sentence-embedding model's size (MiniLM-class). */
const DIMENSIONS = 384;
const TENANTS = 10;
const WORDS = 2000;
const WORDS_PER_ITEM = 24;
const BATCH = 2000;

const word = (n: number) => `w${n.toString(36)}`;

/** A deterministic unit-ish vector of a text: what a real model's latency-free stand-in answers. */
function vectorOf(text: string): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  let block = Buffer.alloc(0);
  for (let i = 0; i < DIMENSIONS; i++) {
    if (i % 16 === 0) block = createHash('sha256').update(`${i}:${text}`).digest();
    vector[i] = block.readUInt16LE((i % 16) * 2) / 32768 - 1;
  }
  return vector;
}

/** An OpenAI-compatible `/v1/embeddings` on loopback, answering at once: the gateway's time is not measured here. */
async function startEmbeddingsServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { input } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[] };
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(vectorOf(text)) }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data, model: 'bench-embedder', usage: { prompt_tokens: 1, total_tokens: 1 } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `count` items over TENANTS tenants (a tenth shared), a fifth organization- and a fifth role-scoped, all embedded. */
export async function fillMemory(databaseUrl: string, tenantIds: string[], count: number): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let start = 0; start < count; start += BATCH) {
      const ids: string[] = [];
      const tenants: (string | null)[] = [];
      const scopes: string[] = [];
      const orgs: (string | null)[] = [];
      const roles: (string | null)[] = [];
      const texts: string[] = [];
      const embeddings: Buffer[] = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const words = Array.from({ length: WORDS_PER_ITEM }, (_, k) => word((i * 7919 + k * 104_729) % WORDS));
        const text = words.join(' ');
        const kind = i % 5;
        ids.push(randomUUID());
        tenants.push(i % 10 === 0 ? null : tenantIds[i % TENANTS]);
        scopes.push(kind === 1 ? 'organization' : kind === 2 ? 'role' : 'global');
        orgs.push(kind === 1 ? `org-${i % 20}` : null);
        roles.push(kind === 2 ? `role-${i % 15}` : null);
        texts.push(text);
        embeddings.push(Buffer.from(vectorOf(text).buffer));
      }
      await client.query(
        `INSERT INTO "memory"."entries" ("id", "tenant_id", "scope", "org_id", "job_role", "title", "content", "source",
           "embedding", "embedding_model", "created_at", "updated_at")
         SELECT id, tenant, scope, org, role, '', text, 'bench', embedding, 'bench-embedder', now(), now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[])
           AS t(id, tenant, scope, org, role, text, embedding)`,
        [ids, tenants, scopes, orgs, roles, texts, embeddings],
      );
    }
  } finally {
    await client.end();
  }
  await runSql(databaseUrl, 'VACUUM ANALYZE "memory"."entries"');
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const durationMs = quick ? 2000 : 8000;
  const warmupMs = quick ? 1000 : 3000;
  const items = quick ? 10_000 : 100_000;
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  const embeddings = await startEmbeddingsServer();
  let admin: ChildServer | undefined;
  try {
    await runMigrations(databaseUrl);
    const tenantIds = Array.from({ length: TENANTS }, () => randomUUID());
    const filled = performance.now();
    await fillMemory(databaseUrl, tenantIds, items);
    process.stdout.write(`stored ${items} items in ${((performance.now() - filled) / 1000).toFixed(1)} s\n`);
    admin = await startAppWithTestIssuer({
      distRoot,
      app: 'admin-service',
      databaseUrl,
      issuerUrl: issuer.issuer,
      jwksUrl: jwks.url,
      env: {
        MEMORY_EMBEDDING_MODEL: 'bench-embedder',
        MEMORY_GATEWAY_URL: embeddings.url,
        MEMORY_GATEWAY_API_KEY: 'bench',
        MEMORY_QUERY_MONTHLY_LIMIT: '1000000000',
      },
    });
    const token = await issuer.mint({
      scope: 'sharedmemory:query',
      realm_access: { roles: ['admin'] },
      tenant: { id: tenantIds[1], type: 'saas', endpoint: 'https://bench.example.com' },
    });
    const bodies = {
      'one word': { query: word(17) },
      'three words, orgId and jobRole': {
        query: `${word(3)} ${word(900)} ${word(1500)}`,
        orgId: 'org-1',
        jobRole: 'role-1',
      },
      'phrase and exclusion': { query: `"${word(5)} ${word(6)}" -${word(7)}` },
    };
    const results: Record<string, LatencyResult> = {};
    for (const [name, body] of Object.entries(bodies)) {
      results[name] = await measureLatency(`${admin.url}/api/v1/admin/memory/query`, {
        durationMs,
        warmupMs,
        request: {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      });
    }
    const ms = (us: number) => (us / 1000).toFixed(2);
    const rows: Row[] = Object.entries(results).map(([name, result]) => ({
      query: name,
      items: items,
      requests: result.requests,
      'p50, ms': ms(result.p50),
      'p99, ms': ms(result.p99),
      'max, ms': ms(result.max),
    }));
    printTable(
      `memory-query: POST /v1/admin/memory/query, hybrid (full-text + ${DIMENSIONS}-dimension embeddings, in-process scan), concurrency 1`,
      rows,
    );
    const file = writeResult(resultsDir, 'memory-query', {
      quick,
      items,
      dimensions: DIMENSIONS,
      results,
      table: rows,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    await admin?.stop();
    await embeddings.close();
    await jwks.close();
    await issuer.close();
  }
}

/**
 * The shared-memory query through admin-service as deployed, at 10^5 embedded items (10^4 with --quick),
 * with an embeddings server that answers at once (the gateway's own time is the gateway benchmark's).
 */
export const memoryQueryBenchmark: Benchmark = {
  name: 'memory-query',
  description: 'POST /api/v1/admin/memory/query p99 at 10^5 embedded items (hybrid search, quota counted)',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
