export { A2aModule } from './a2a.module';
