// main.ts's first import, before any other module: V8's compile cache (off where its directory is not writable),
// then the tracing instrumentations, which patch modules as first required (docs/operations.md, "Tracing").
import { enableCompileCache } from 'node:module';
import { startTracing } from '@fed/observability/tracing';

enableCompileCache?.();
startTracing('llm-gateway');
