import 'reflect-metadata';
import { runService } from '@fed/server';
import { AgentRuntimeModule } from './agent-runtime.module';

void runService({ app: 'agent-runtime', features: [AgentRuntimeModule] });
