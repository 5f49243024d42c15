import './preload';
import 'reflect-metadata';
import { runService } from '@fed/server';
import { AdminServiceModule } from './admin-service.module';

void runService({ app: 'admin-service', features: [AdminServiceModule] });
