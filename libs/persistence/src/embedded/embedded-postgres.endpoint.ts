import { ProcessFile, type ProcessRecord } from './process-file';

/** Present while its holder shares the database (the platform, for platformctl). */
export const ENDPOINT_FILE = 'embedded-postgres.json';

export interface EmbeddedPostgresEndpointV1 extends ProcessRecord {
  /** A Unix socket in an owner-only directory: no secret is needed. */
  url: string;
}

export const endpointFile = (dataDir: string) =>
  ProcessFile.in<EmbeddedPostgresEndpointV1>(dataDir, ENDPOINT_FILE, (value) => typeof value.url === 'string');
