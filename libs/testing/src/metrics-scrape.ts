/** One sample of a Prometheus text exposition. */
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

/** The samples of a text exposition (version 0.0.4); comments and blank lines are skipped. */
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

/** What a service's `/metrics` showed at one moment, for assertions on series and their values. */
export class MetricsScrape {
  private constructor(readonly samples: readonly MetricSample[]) {}

  /** `GET {baseUrl}/metrics`, which must answer 200. */
  static async of(baseUrl: string): Promise<MetricsScrape> {
    const res = await fetch(`${baseUrl}/metrics`);
    if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
    return new MetricsScrape(parseMetrics(await res.text()));
  }

  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels: Record<string, string> = {}): MetricSample[] {
    return this.samples.filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  }

  /** The sum of the matching samples; 0 when there are none (a counter not incremented yet). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels).reduce((total, sample) => total + sample.value, 0);
  }

  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.find(name, labels).length > 0;
  }
}
