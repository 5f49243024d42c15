import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

// Preloaded into a server under test (`NODE_OPTIONS=--require <this file>`, as `--cpu-prof` may not
// be given there) when FED_BENCH_CPU_PROFILE names a file: a V8 CPU profile from start to exit,
// written there at exit (open it in Chrome DevTools, or sum its samples).
const file = process.env.FED_BENCH_CPU_PROFILE;
if (file) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.once('exit', () => {
    // A session on the same thread answers synchronously, so the profile is written before exit.
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
