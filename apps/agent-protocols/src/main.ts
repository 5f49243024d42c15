import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server';
import { AgentProtocolsModule } from './agent-protocols.module';

void runService({ app: 'agent-protocols', features: [AgentProtocolsModule] });
