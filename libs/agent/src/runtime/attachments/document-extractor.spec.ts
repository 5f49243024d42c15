import { deflatedPdf, minimalDocx, minimalPdf } from '@fed/testing';
import { DocumentExtractor } from './document-extractor';

describe('DocumentExtractor', () => {
  let extractor: DocumentExtractor;

  afterEach(async () => {
    await extractor.close();
  });

  it('extracts a DOCX in a worker, and a PDF in the same worker after it', async () => {
    extractor = new DocumentExtractor({ maxWorkers: 1, idleMs: 60_000, maxHeapMb: 256 });
    expect(await extractor.text('docx', minimalDocx(['first paragraph', 'second paragraph']))).toBe(
      'first paragraph\n\nsecond paragraph\n\n',
    );
    expect(await extractor.text('pdf', minimalPdf('then'))).toBe('then');
  });

  it('extracts a PDF in a worker and keeps the worker for the next one', async () => {
    extractor = new DocumentExtractor({ maxWorkers: 1, idleMs: 60_000, maxHeapMb: 256 });
    expect(await extractor.text('pdf', minimalPdf('first'))).toBe('first');
    const started = performance.now();
    expect(await extractor.text('pdf', minimalPdf('second'))).toBe('second');
    // The second PDF found PDF.js loaded (a new worker takes about 0.3 s to load it).
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('rejects a file that is not a PDF, and reads the next one', async () => {
    extractor = new DocumentExtractor({ maxWorkers: 1, idleMs: 60_000, maxHeapMb: 256 });
    await expect(extractor.text('pdf', Buffer.from('not a pdf at all'))).rejects.toThrow();
    expect(await extractor.text('pdf', minimalPdf('after'))).toBe('after');
  });

  it('ends the worker when the signal aborts, with the signal’s reason, and starts another for the next PDF', async () => {
    extractor = new DocumentExtractor({ maxWorkers: 1, idleMs: 60_000, maxHeapMb: 256 });
    const bomb = deflatedPdf(400 * 1024 * 1024);
    const reason = new Error('time is up');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 300);
    const started = performance.now();
    await expect(extractor.text('pdf', bomb, controller.signal)).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(await extractor.text('pdf', minimalPdf('next'))).toBe('next');
  });

  it('makes extractions past maxWorkers wait for a worker; one aborted while waiting leaves the queue', async () => {
    extractor = new DocumentExtractor({ maxWorkers: 1, idleMs: 60_000, maxHeapMb: 256 });
    const busy = new AbortController();
    const first = extractor.text('pdf', deflatedPdf(400 * 1024 * 1024), busy.signal);
    const waiting = new AbortController();
    const second = extractor.text('pdf', minimalPdf('second'), waiting.signal);
    const third = extractor.text('pdf', minimalPdf('third'));
    waiting.abort(new Error('gave up'));
    await expect(second).rejects.toThrow('gave up');
    busy.abort(new Error('stop'));
    await expect(first).rejects.toThrow('stop');
    expect(await third).toBe('third');
  });

  it('refuses at once when the signal has already aborted', async () => {
    extractor = new DocumentExtractor();
    await expect(extractor.text('pdf', minimalPdf('x'), AbortSignal.abort(new Error('before')))).rejects.toThrow(
      'before',
    );
  });
});
