import { type Benchmark } from './benchmark';
import { healthzBenchmark } from './healthz.bench';
import { startupBenchmark } from './startup.bench';
import { verifyBenchmark } from './verify.bench';

// Later issues add theirs here (gateway overhead, token endpoint, chunk relay, open SSE streams).
export const benchmarks: Benchmark[] = [healthzBenchmark, startupBenchmark, verifyBenchmark];
