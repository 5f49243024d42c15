export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));
}

/** Text exposition version 0.0.4. */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const label = LABEL.exec(body);
      if (!label) throw new Error(`bad labels in: ${line}`);
      labels[label[1] as string] = unescape(label[2] as string);
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

export class MetricsScrape {
  private constructor(readonly samples: readonly MetricSample[]) {}

  /** Must answer 200. */
  static async of(baseUrl: string): Promise<MetricsScrape> {
    const res = await fetch(`${baseUrl}/metrics`);
    if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
    return new MetricsScrape(parseMetrics(await res.text()));
  }

  /** Labels must include `labels`. */
  find(name: string, labels: Record<string, string> = {}): MetricSample[] {
    return this.samples.filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  }

  /** 0 when there are none (a counter not incremented yet). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels).reduce((total, sample) => total + sample.value, 0);
  }

  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.find(name, labels).length > 0;
  }
}
