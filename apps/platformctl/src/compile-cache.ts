import { enableCompileCache } from 'node:module';

// platformctl is short-lived and loads most modules: V8's compile cache speeds up every run after the first (off
// where its directory is not writable).
enableCompileCache?.();
