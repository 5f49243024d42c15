// One Postgres schema per bounded context; each domain lib creates its tables only in its own.
export const contextSchemas = ['identity', 'conversations', 'agent', 'gateway', 'audit', 'memory'] as const;
export type ContextSchema = (typeof contextSchemas)[number];

// The migrations table, which belongs to no context.
export const platformSchema = 'platform';
export const migrationsTable = `${platformSchema}.migrations`;
