import { parser as promql } from '@prometheus-io/lezer-promql';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Registry } from 'prom-client';
import { parse, parseAllDocuments } from 'yaml';
import * as observability from '@fed/observability';

// Static checks of the monitoring artefacts: the Prometheus alert rules and the Grafana dashboard
// use only metrics the platform exposes (docs/operations.md, Metrics), in PromQL that parses.

const root = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface PrometheusRule {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { groups: { name: string; rules: Rule[] }[] };
}
interface Target {
  expr?: string;
  refId?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
  gridPos?: { h: number; w: number; x: number; y: number };
}
interface Variable {
  name: string;
  type: string;
  query?: unknown;
  datasource?: { uid?: string };
}
interface Dashboard {
  __inputs: { name: string; type: string; pluginId: string }[];
  schemaVersion: number;
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
}

/** The `## Metrics` section's table: every metric name the platform exposes beyond Node's defaults. */
function documentedMetrics(): Map<string, string> {
  const text = read('docs/operations.md');
  const section = text.slice(text.indexOf('\n## Metrics'));
  const end = section.indexOf('\n## ', 1);
  const metrics = new Map<string, string>();
  for (const line of (end < 0 ? section : section.slice(0, end)).split('\n')) {
    const match = /^\|\s*`([a-z_:][a-z0-9_:]*)`\s*\|\s*(counter|gauge|histogram)\s*\|/.exec(line);
    if (match) metrics.set(match[1] as string, match[2] as string);
  }
  return metrics;
}

const DEFAULT_PREFIXES = ['process_', 'nodejs_'];

/** Whether `name` (a series name in a query) is exposed: documented, a histogram's part, Node's defaults, or `up`. */
function exposed(name: string, documented: Map<string, string>): boolean {
  if (name === 'up' || DEFAULT_PREFIXES.some((prefix) => name.startsWith(prefix))) return true;
  if (documented.has(name)) return documented.get(name) !== 'histogram';
  const histogram = /^(.+)_(bucket|sum|count)$/.exec(name);
  return histogram !== null && documented.get(histogram[1] as string) === 'histogram';
}

/** Grafana's variables, replaced by what Prometheus would be sent. */
function withoutGrafanaVariables(expr: string): string {
  return expr
    .replace(/\$__rate_interval|\$__interval|\$__range/g, '5m')
    .replace(/\$\{?(\w+)\}?/g, (_, name: string) => `var_${name}`);
}

/** What the PromQL parser (Prometheus' own grammar) finds: syntax errors and the series names selected. */
function analyse(expr: string): { errors: number; metrics: string[]; functions: string[] } {
  const tree = promql.parse(expr);
  let errors = 0;
  const metrics: string[] = [];
  const functions: string[] = [];
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) errors++;
      if (node.name === 'VectorSelector') {
        const identifier = node.node.getChild('Identifier');
        if (identifier) metrics.push(expr.slice(identifier.from, identifier.to));
      }
      if (node.name === 'FunctionIdentifier') functions.push(expr.slice(node.from, node.to));
    },
  });
  return { errors, metrics, functions };
}

function balanced(expr: string): boolean {
  const open: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  let quoted = false;
  for (let i = 0; i < expr.length; i++) {
    const char = expr[i] as string;
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if ('([{'.includes(char)) open.push(char);
    else if (char in pairs && open.pop() !== pairs[char]) return false;
  }
  return open.length === 0 && !quoted;
}

const KNOWN_FUNCTIONS = new Set([
  'rate',
  'irate',
  'increase',
  'deriv',
  'delta',
  'absent',
  'absent_over_time',
  'histogram_quantile',
  'clamp_min',
  'max_over_time',
  'avg_over_time',
  'predict_linear',
]);

function expressionProblems(expr: string, documented: Map<string, string>): string[] {
  const problems: string[] = [];
  if (!balanced(expr)) problems.push('unbalanced brackets or quotes');
  const { errors, metrics, functions } = analyse(withoutGrafanaVariables(expr));
  if (errors > 0) problems.push(`${errors} PromQL syntax error(s)`);
  if (metrics.length === 0) problems.push('selects no metric');
  for (const metric of metrics) if (!exposed(metric, documented)) problems.push(`unknown metric ${metric}`);
  for (const fn of functions) if (!KNOWN_FUNCTIONS.has(fn)) problems.push(`unexpected function ${fn}`);
  return problems;
}

describe('monitoring artefacts (deploy/observability)', () => {
  const documented = documentedMetrics();
  const file = parse(read('deploy/observability/prometheus-rules.yaml')) as PrometheusRule;
  const rules = file.spec.groups.flatMap((group) => group.rules);
  const dashboard = JSON.parse(read('deploy/observability/grafana-dashboard.json')) as Dashboard;
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  const queried = panels.filter((panel) => panel.type !== 'row');
  const expressions = [
    ...rules.map((rule) => rule.expr),
    ...queried.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr ?? '')),
  ];
  const used = new Set(expressions.flatMap((expr) => analyse(withoutGrafanaVariables(expr)).metrics));

  it('documents every metric the code defines, with its type', () => {
    const defined = (Object.values(observability) as unknown[]).filter(
      (value): value is observability.MetricDefinition<unknown> =>
        typeof value === 'object' && value !== null && 'name' in value && 'create' in value,
    );
    expect(defined.length).toBeGreaterThanOrEqual(10);
    for (const definition of defined) {
      const metric = definition.create(new Registry());
      const type = (metric as { type?: string }).type ?? 'gauge';
      expect([definition.name, documented.get(definition.name)]).toEqual([definition.name, type]);
    }
    for (const name of ['run_queue_jobs', 'run_queue_oldest_job_age_seconds', 'run_queue_consumers']) {
      expect([name, documented.get(name)]).toEqual([name, 'gauge']);
    }
  });

  describe('Prometheus rules', () => {
    it('is a PrometheusRule whose spec is also a plain rules file', () => {
      expect(file.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(file.kind).toBe('PrometheusRule');
      expect(Object.keys(file.spec)).toEqual(['groups']);
      const names = file.spec.groups.map((group) => group.name);
      expect(new Set(names).size).toBe(names.length);
    });

    it('gives every alert a severity, a summary, a description, a runbook note and a duration', () => {
      for (const rule of rules) {
        expect([rule.alert, Object.keys(rule).sort()]).toEqual([
          rule.alert,
          ['alert', 'annotations', 'expr', 'for', 'labels'],
        ]);
        expect([rule.alert, rule.labels?.severity]).toEqual([
          rule.alert,
          expect.stringMatching(/^(warning|critical)$/),
        ]);
        expect([rule.alert, Object.keys(rule.annotations ?? {}).sort()]).toEqual([
          rule.alert,
          ['description', 'runbook', 'summary'],
        ]);
        expect(rule.for).toMatch(/^\d+m$/);
      }
      const alerts = rules.map((rule) => rule.alert);
      expect(new Set(alerts).size).toBe(alerts.length);
    });

    it('alerts on the obvious failures', () => {
      const byName = new Map(rules.map((rule) => [rule.alert as string, rule]));
      const expects = (alert: string, ...fragments: string[]) => {
        const expr = byName.get(alert)?.expr ?? '';
        for (const fragment of fragments) expect([alert, expr]).toEqual([alert, expect.stringContaining(fragment)]);
      };
      expects('RunQueueGrowing', 'deriv(run_queue_jobs{state="waiting"}[10m])', 'run_queue_oldest_job_age_seconds');
      expect(byName.get('RunQueueGrowing')?.for).toBe('10m');
      expects('RunQueueNoConsumer', 'run_queue_jobs{state="waiting"}) > 0', 'run_queue_consumers) == 0');
      expect(byName.get('RunQueueNoConsumer')?.for).toBe('5m');
      expects('GatewayProviderErrors', 'gateway_upstream_errors_total', '> 0.05');
      expect(byName.get('GatewayProviderErrors')?.for).toBe('10m');
      expects('SseStreamsOverHpaTarget', 'sse_streams_active');
      expects('LoginFailuresSpike', 'auth_login_failures_total');
      expects('ServiceDown', 'up{');
      expects('ServiceMetricsAbsent', 'absent(');
    });

    it("puts the streams alert just past the HPAs' tolerance of their target", () => {
      const targets = ['chat-service', 'agent-protocols'].map((app) => {
        const hpa = parseAllDocuments(read(`deploy/k8s/base/${app}.yaml`))
          .map((document) => document.toJSON() as { kind?: string; spec?: { metrics?: unknown[] } })
          .find((object) => object.kind === 'HorizontalPodAutoscaler');
        const streams = (hpa?.spec?.metrics ?? []).find(
          (metric) => (metric as { pods?: { metric?: { name?: string } } }).pods?.metric?.name === 'sse_streams_active',
        ) as { pods: { target: { averageValue: string } } } | undefined;
        return Number(streams?.pods.target.averageValue);
      });
      expect(new Set(targets).size).toBe(1);
      const threshold = /\)\) > (\d+)\s*$/.exec(
        rules.find((rule) => rule.alert === 'SseStreamsOverHpaTarget')?.expr ?? '',
      );
      expect(Number(threshold?.[1])).toBe(Math.round((targets[0] as number) * 1.1));
    });

    it('uses only exposed metrics, in expressions that parse', () => {
      for (const rule of rules)
        expect([rule.alert, expressionProblems(rule.expr, documented)]).toEqual([rule.alert, []]);
    });
  });

  describe('Grafana dashboard', () => {
    it('is importable: a current schema, the data source as the DS_PROMETHEUS input and variable, namespace and service variables', () => {
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
      expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
      expect(dashboard.__inputs).toEqual([
        expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
      ]);
      const variables = new Map(dashboard.templating.list.map((variable) => [variable.name, variable]));
      expect(variables.get('DS_PROMETHEUS')).toMatchObject({ type: 'datasource', query: 'prometheus' });
      for (const name of ['namespace', 'service']) {
        expect(variables.get(name)).toMatchObject({ type: 'query', datasource: { uid: '${DS_PROMETHEUS}' } });
      }
      const ids = panels.map((panel) => panel.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('gives every panel the data source and at least one query, filtered by namespace and service', () => {
      expect(queried.length).toBeGreaterThanOrEqual(20);
      for (const panel of queried) {
        expect([panel.title, panel.datasource]).toEqual([panel.title, { type: 'prometheus', uid: '${DS_PROMETHEUS}' }]);
        expect([panel.title, (panel.targets ?? []).length > 0]).toEqual([panel.title, true]);
        for (const target of panel.targets ?? []) {
          expect([panel.title, target.datasource?.uid, target.refId]).toEqual([
            panel.title,
            '${DS_PROMETHEUS}',
            expect.any(String),
          ]);
          expect([panel.title, target.expr]).toEqual([panel.title, expect.stringContaining('namespace=~"$namespace"')]);
        }
      }
    });

    it('uses only exposed metrics, in queries that parse', () => {
      for (const panel of queried) {
        for (const target of panel.targets ?? []) {
          expect([panel.title, expressionProblems(target.expr ?? '', documented)]).toEqual([panel.title, []]);
        }
      }
    });

    it('shows every documented metric, and requests per service', () => {
      const shown = (name: string) =>
        used.has(name) || ['_bucket', '_count', '_sum'].some((suffix) => used.has(`${name}${suffix}`));
      for (const name of documented.keys()) expect([name, shown(name)]).toEqual([name, true]);
    });

    it('lays panels out on the 24-column grid', () => {
      for (const panel of panels) {
        const grid = panel.gridPos as { x: number; w: number; h: number };
        expect([panel.title, grid.x + grid.w <= 24 && grid.w > 0 && grid.h > 0]).toEqual([panel.title, true]);
      }
    });
  });

  describe('the checks themselves', () => {
    it('find syntax errors, unbalanced brackets, unknown metrics and functions', () => {
      expect(expressionProblems('sum(rate(http_requests_total[5m])', documented)).toEqual(
        expect.arrayContaining(['unbalanced brackets or quotes', expect.stringMatching(/syntax error/)]),
      );
      expect(expressionProblems('rate(gateway_requests_total[5m])', documented)).toEqual([
        'unknown metric gateway_requests_total',
      ]);
      expect(expressionProblems('sse_streams_active_count', documented)).toEqual([
        'unknown metric sse_streams_active_count',
      ]);
      expect(expressionProblems('agent_turn_duration_seconds', documented)).toEqual([
        'unknown metric agent_turn_duration_seconds',
      ]);
      expect(expressionProblems('vector(1)', documented)).toEqual(['selects no metric', 'unexpected function vector']);
      expect(expressionProblems('max(run_queue_jobs{namespace=~"$namespace"}) > 0', documented)).toEqual([]);
    });
  });
});
