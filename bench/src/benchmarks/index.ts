import { adminLogsBenchmark } from './admin-logs.bench';
import { type Benchmark } from './benchmark';
import { chatBenchmark } from './chat.bench';
import { filesBenchmark } from './files.bench';
import { gatewayBenchmark } from './gateway.bench';
import { gatewayTracingBenchmark } from './gateway-tracing.bench';
import { gatewayUsageBenchmark } from './gateway-usage.bench';
import { healthzBenchmark } from './healthz.bench';
import { memoryQueryBenchmark } from './memory-query.bench';
import { piecesBenchmark } from './pieces.bench';
import { protocolsBenchmark } from './protocols.bench';
import { searchBenchmark } from './search.bench';
import { startupBenchmark } from './startup.bench';
import { tokenBenchmark } from './token.bench';
import { turnHistoryBenchmark } from './turn-history.bench';
import { verifyBenchmark } from './verify.bench';
import { webAppBenchmark } from './web-app.bench';

// Later issues add theirs here (gateway overhead, chunk relay, open SSE streams).
export const benchmarks: Benchmark[] = [
  healthzBenchmark,
  startupBenchmark,
  verifyBenchmark,
  tokenBenchmark,
  gatewayBenchmark,
  gatewayTracingBenchmark,
  chatBenchmark,
  piecesBenchmark,
  protocolsBenchmark,
  filesBenchmark,
  adminLogsBenchmark,
  gatewayUsageBenchmark,
  memoryQueryBenchmark,
  searchBenchmark,
  turnHistoryBenchmark,
  webAppBenchmark,
];
