import { readFileSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';

// Preloaded into a server under test (`NODE_OPTIONS=--require <this file>`) to see where its memory
// goes. Each SIGUSR2 writes `<prefix>-<n>.json` (n = 1, 2, ...): the process's memory split as it was
// running, then again after a full collection. RSS minus V8's committed heap minus `external` is what
// lies outside both (code, stacks, malloc); V8's committed heap minus its live objects is headroom.
// - FED_BENCH_HEAP_SNAPSHOT=<prefix>: also `<prefix>-<n>.heapsnapshot` (its collection is the full one).
// - FED_BENCH_MEMORY_SPLIT=<prefix>: the split alone, cheap enough for thousands of streams.
// The JSON is written last, so a driver waits for it to know that everything is complete.
const snapshotPrefix = process.env.FED_BENCH_HEAP_SNAPSHOT;
const prefix = snapshotPrefix ?? process.env.FED_BENCH_MEMORY_SPLIT;

function residentKiB(): Record<string, number> {
  const status = readFileSync('/proc/self/status', 'utf8');
  const fields: Record<string, number> = {};
  for (const name of ['VmRSS', 'RssAnon', 'RssFile', 'VmHWM']) {
    fields[name] = Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  }
  return fields;
}

function memorySplit() {
  const spaces = Object.fromEntries(
    v8
      .getHeapSpaceStatistics()
      .map((space) => [space.space_name, { sizeKiB: space.space_size >> 10, usedKiB: space.space_used_size >> 10 }]),
  );
  return { memoryUsage: process.memoryUsage(), residentKiB: residentKiB(), heapSpaces: spaces };
}

/** A full collection without `--expose-gc` on the command line (NODE_OPTIONS may not carry it). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

if (prefix) {
  let taken = 0;
  process.on('SIGUSR2', () => {
    const n = ++taken;
    const running = memorySplit();
    const started = performance.now();
    if (snapshotPrefix) v8.writeHeapSnapshot(`${prefix}-${n}.heapsnapshot`);
    else collectGarbage();
    const pauseSeconds = (performance.now() - started) / 1000;
    const afterCollection = memorySplit();
    writeFileSync(`${prefix}-${n}.json`, JSON.stringify({ running, afterCollection, pauseSeconds }, null, 2));
  });
}
