export { DELIVERABLE_PATH, MAX_DELIVERABLE_PATH, deliverablePathProblem } from './deliverable-path';
export { DeliverablesModule } from './deliverables.module';
export { DELIVERABLES_PREFIX, DeliverablesService } from './deliverables.service';
