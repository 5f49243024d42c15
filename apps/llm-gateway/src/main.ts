import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server/run-service';

void runService({
  app: 'llm-gateway',
  // Required where the gateway runs, not imported: with LLM_GATEWAY_WORKERS above 1 this process is the
  // workers' primary, which needs neither the gateway nor the framework.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  features: async () => [(require('./llm-gateway.module') as typeof import('./llm-gateway.module')).LlmGatewayModule],
  workers: (config) => config.gateway.workers,
});
