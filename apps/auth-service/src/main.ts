import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server';
import { AuthServiceModule } from './auth-service.module';

void runService({ app: 'auth-service', features: [AuthServiceModule] });
