import { type Benchmark } from './benchmark';
import { healthzBenchmark } from './healthz.bench';

// Later issues add theirs here (gateway overhead, token endpoint, verification, chunk relay, SSE).
export const benchmarks: Benchmark[] = [healthzBenchmark];
