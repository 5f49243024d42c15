import { writeFileSync } from 'node:fs';
import { type BrowserContext, type Page } from 'playwright-core';

// What the web app's benchmark reads off a page: long tasks, when something became true (in the system
// clock, so that it compares with times taken in Node), and where the main thread spent its time.

/** A main-thread task of 50 ms or more, in the page's clock (ms since its navigation start). */
export interface LongTask {
  startTime: number;
  duration: number;
}

const LONG_TASKS = '__benchLongTasks';
const CHECKS = '__benchChecks';

/**
 * Source text of a check that runs in the page: an arrow function of one argument that says whether a
 * state is reached. Text, because this code is compiled without the DOM's types; installed by an init
 * script, because the app's CSP forbids evaluating strings.
 */
export type PageCheck = string;

/** The message box (argument: its label) is on screen and takes input: "the composer is usable". */
export const composerUsable: PageCheck = `(label) => {
  const control = [...document.querySelectorAll('label')].find((l) => l.textContent.trim() === label)?.control;
  return control instanceof HTMLTextAreaElement && !control.disabled && !control.readOnly &&
    control.checkVisibility({ visibilityProperty: true });
}`;

/** The element matched by the selector (argument) is in the window's view. */
export const onScreen: PageCheck = `(selector) => {
  const box = document.querySelector(selector)?.getBoundingClientRect();
  return !!box && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight;
}`;

/**
 * Every page of the context keeps its long tasks from its start (buffered, so tasks before the observer
 * ran count too), in `globalThis.__benchLongTasks`, and has the named checks, for `whenTrue` and `holds`.
 */
export async function instrument(context: BrowserContext, checks: Record<string, PageCheck>): Promise<void> {
  const installed = Object.entries({ composerUsable, onScreen, ...checks })
    .map(([name, source]) => `${JSON.stringify(name)}: ${source}`)
    .join(',\n');
  await context.addInitScript(`(() => {
    globalThis.${CHECKS} = {${installed}};
    const tasks = (globalThis.${LONG_TASKS} = []);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push({ startTime: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  })()`);
}

/** The checks as a page function sees them (a page function cannot use this module's names). */
type InPage = typeof globalThis & { __benchChecks?: Record<string, (arg: unknown) => boolean> };

/** The page's clock now (ms since its navigation start), to bound a phase's long tasks. */
export function pageNow(page: Page): Promise<number> {
  return page.evaluate(() => performance.now());
}

/** The long tasks that started in [from, to) of the page's clock. */
export async function longTasksBetween(page: Page, from: number, to = Infinity): Promise<LongTask[]> {
  const tasks = await page.evaluate(
    (name) => (globalThis as unknown as Record<string, LongTask[]>)[name] ?? [],
    LONG_TASKS,
  );
  return tasks.filter((task) => task.startTime >= from && task.startTime < to);
}

export function longest(tasks: LongTask[]): number {
  return tasks.reduce((most, task) => Math.max(most, task.duration), 0);
}

/** The system clock in ms with sub-millisecond precision, as a page's `timeOrigin + now()` reads it. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * When (system clock, ms) the named check first held in the page, tested on every animation frame. A
 * navigation under way (a sign-in's redirects) replaces the document: the test starts again in the new one.
 */
export async function whenTrue(page: Page, check: string, arg: unknown, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${check}(${JSON.stringify(arg)})`);
    try {
      const handle = await page.waitForFunction(
        ([name, value]) => {
          const test = (globalThis as InPage).__benchChecks?.[name];
          return !!test?.(value) && performance.timeOrigin + performance.now();
        },
        [check, arg] as const,
        { polling: 'raf', timeout: left },
      );
      return (await handle.jsonValue()) as number;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!/context was destroyed|navigat/i.test(message)) throw error;
      await page.waitForLoadState('domcontentloaded').catch(() => undefined);
    }
  }
}

/** Whether the named check holds in the page now. */
export function holds(page: Page, check: string, arg: unknown): Promise<boolean> {
  return page.evaluate(([name, value]) => !!(globalThis as InPage).__benchChecks?.[name]?.(value), [
    check,
    arg,
  ] as const);
}

/** Self time per function of a CPU profile (Chromium's `Profiler.Profile`), the heaviest first. */
export interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Runs `work` under Chromium's sampling profiler; writes the profile to `file` (DevTools opens it) and
 * returns the functions with the most self time. Slows the page: never around a measured phase.
 */
export async function profileDuring(
  page: Page,
  file: string,
  work: () => Promise<void>,
  top = 12,
): Promise<HotFunction[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
    await cdp.send('Profiler.start');
    await work();
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    writeFileSync(file, JSON.stringify(profile));
    const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
    const self = new Map<string, HotFunction>();
    profile.samples.forEach((nodeId, i) => {
      const frame = byNode.get(nodeId)?.callFrame;
      if (!frame) return;
      const name = frame.functionName || '(anonymous)';
      const where = frame.url
        ? `${frame.url.replace(/^.*\//, '')}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`
        : '';
      const key = `${name} ${where}`;
      const entry = self.get(key) ?? { name, where, selfMs: 0 };
      entry.selfMs += (profile.timeDeltas[i] ?? 0) / 1000;
      self.set(key, entry);
    });
    self.delete('(idle) ');
    return [...self.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}
