export interface BenchmarkContext {
  /** Root of the compiled tree (dist/). */
  distRoot: string;
  resultsDir: string;
  /** Shorter runs, for a smoke check of the harness. */
  quick: boolean;
}

export interface Benchmark {
  name: string;
  description: string;
  run(context: BenchmarkContext): Promise<void>;
}
