import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server';
import { LlmGatewayModule } from './llm-gateway.module';

void runService({ app: 'llm-gateway', features: [LlmGatewayModule], workers: (config) => config.gateway.workers });
