// s3rver ships no types; only what the test server uses.
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    configureBuckets?: { name: string }[];
  }

  interface KoaContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    status: number;
    body: unknown;
    length: number;
    get(header: string): string;
    set(header: string, value: string): void;
  }

  type Middleware = (context: KoaContext, next: () => Promise<void>) => Promise<void> | void;

  class S3rver {
    constructor(options?: S3rverOptions);
    middleware: Middleware[];
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export = S3rver;
}
