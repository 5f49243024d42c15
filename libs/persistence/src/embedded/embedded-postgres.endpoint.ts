import { ProcessFile, type ProcessRecord } from './process-file';

/** In the data directory while its holder shares the database with other processes (the platform, for platformctl). */
export const ENDPOINT_FILE = 'embedded-postgres.json';

export interface EmbeddedPostgresEndpointV1 extends ProcessRecord {
  /** postgres:// URL of a Unix socket in a directory only the owner may enter: no secret is needed. */
  url: string;
}

/** The endpoint file of a data directory; its `pid` is the holder of the directory's lock. */
export const endpointFile = (dataDir: string) =>
  ProcessFile.in<EmbeddedPostgresEndpointV1>(dataDir, ENDPOINT_FILE, (value) => typeof value.url === 'string');
