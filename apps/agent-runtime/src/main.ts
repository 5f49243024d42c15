import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server';
import { AgentRuntimeModule } from './agent-runtime.module';
import { reportTurnReadiness } from './turn-readiness';

void runService({
  app: 'agent-runtime',
  features: [AgentRuntimeModule],
  onReady: (service) => void reportTurnReadiness(service.config, service.logger),
});
