export { DELIVERABLE_PATH, MAX_DELIVERABLE_PATH, deliverablePathProblem } from './deliverable-path';
export { DeliverablesModule } from './deliverables.module';
export { DeliverablesService } from './deliverables.service';
