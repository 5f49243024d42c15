import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server';
import { ChatServiceModule } from './chat-service.module';

void runService({ app: 'chat-service', features: [ChatServiceModule] });
