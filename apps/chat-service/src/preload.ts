// main.ts's first import: what must happen before any other module is loaded.
// - V8's compile cache (in the OS temporary directory, keyed by each file's content) makes every start
//   after the first load the platform's modules in about half the time; where the directory cannot be
//   written the cache is simply off.
// - The tracing instrumentations patch http, express, pg, ioredis and undici as they are first required
//   (docs/operations.md, "Tracing").
import { enableCompileCache } from 'node:module';
import { startTracing } from '@fed/observability/tracing';

enableCompileCache?.();
startTracing('chat-service');
