import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { DCLinter } from 'dclint';
import { validate as validateDockerfile } from 'dockerfile-utils';
import { parse, parseAllDocuments } from 'yaml';
import { type AppName, loadConfig, serviceNames, unmetNeeds, variables } from '@fed/config';
import { parseRoutingFile } from '@fed/gateway';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the compose file must name the file that platformctl bootstrap writes.
import { AGENT_GATEWAY_KEY_FILE } from '../apps/platformctl/src/commands/bootstrap.command';
import { type Endpoint, type NetworkPolicy, NetworkPolicies, selectorMatches } from './network-policies';
import {
  type Deployable,
  type EdgeProfile,
  type PathType,
  type Route,
  httpApps,
  matches,
  publicApps,
  resolve,
  routes,
  sandboxRoute,
  specPaths,
  unroutedPaths,
  webService,
} from './routes';

// Static checks of the deployment files: the Kubernetes manifests as `kubectl kustomize` renders
// them, docker-compose.yml with its edge proxy, and the Dockerfile. Nothing is run or deployed.

const root = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

// ---------------------------------------------------------------------------------------------
// What each edge profile needs, in bytes and seconds (deploy/routes.ts describes the profiles).
const MB = 1024 * 1024;
const profileNeeds: Record<
  EdgeProfile,
  {
    minBody: number;
    maxBody?: number;
    unbuffered?: boolean;
    streamedUpload?: boolean;
    minTimeout: number;
    maxTimeout?: number;
  }
> = {
  auth: { minBody: 1 * MB, maxBody: 1 * MB, minTimeout: 60 },
  api: { minBody: 2 * MB, maxBody: 32 * MB, minTimeout: 60 },
  stream: { minBody: 2 * MB, unbuffered: true, minTimeout: 3600 },
  upload: { minBody: 512 * MB, streamedUpload: true, minTimeout: 600 },
  llm: { minBody: 32 * MB, unbuffered: true, minTimeout: 3600 },
  // GET and HEAD only (web-service answers 405 to anything else), files answered at once: a small body
  // limit and short timeouts leave slow or large requests nothing to hold the edge with.
  static: { minBody: 0, maxBody: 1 * MB, minTimeout: 10, maxTimeout: 60 },
};

/** The settings of the app that `variable` is read by (libs/config's `apps`). */
const readsVariable = (app: AppName, variable: string): boolean =>
  (variables.find((v) => v.name === variable)?.apps as readonly string[] | undefined)?.includes(app) === true;

/** Every variable an app reads. */
const variablesOf = (app: AppName): string[] =>
  variables.filter((v) => (v.apps as readonly string[]).includes(app)).map((v) => v.name);

/** Whether an app keeps data: it reads PostgreSQL's and Redis's settings (all but web-service). */
const keepsData = (app: string): boolean =>
  readsVariable(app as AppName, 'DATABASE_URL') && readsVariable(app as AppName, 'REDIS_URL');

/** nginx sizes: `512m`, `1k`, `2g`, or bytes. */
function bytes(size: string): number {
  const match = /^(\d+)([kmg]?)$/i.exec(size.trim());
  if (!match) throw new Error(`not an nginx size: ${size}`);
  const unit = { '': 1, k: 1024, m: MB, g: 1024 * MB }[match[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(match[1]) * unit;
}

/** nginx times: `3600s`, `10m`, `1h`, or seconds. */
function seconds(time: string): number {
  const match = /^(\d+)(s|m|h)?$/.exec(time.trim());
  if (!match) throw new Error(`not an nginx time: ${time}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
}

// ---------------------------------------------------------------------------------------------
// Kubernetes object shapes (only the fields checked here).
type Labels = Record<string, string>;
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Record<string, string> };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
  }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodTemplate {
  metadata: { labels?: Labels; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    restartPolicy?: string;
    terminationGracePeriodSeconds?: number;
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  };
}
interface Deployment extends K8sObject {
  spec: { replicas?: number; selector: { matchLabels: Labels }; template: PodTemplate };
}
interface Job extends K8sObject {
  spec: { template: PodTemplate };
}
interface Service extends K8sObject {
  spec: { selector?: Labels; ports: { name?: string; port: number; targetPort?: string | number }[] };
}
interface MetricTarget {
  type: string;
  averageUtilization?: number;
  averageValue?: string;
  value?: string;
}
interface MetricIdentifier {
  name: string;
  selector?: { matchLabels?: Labels; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
}
interface HpaMetric {
  type: string;
  resource?: { name: string; target: MetricTarget };
  pods?: { metric: MetricIdentifier; target: MetricTarget };
  external?: { metric: MetricIdentifier; target: MetricTarget };
}
interface Hpa extends K8sObject {
  spec: {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: HpaMetric[];
  };
}
interface Pdb extends K8sObject {
  spec: { selector: { matchLabels: Labels } };
}
interface IngressPath {
  path: string;
  pathType: string;
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface Ingress extends K8sObject {
  spec: {
    ingressClassName?: string;
    tls?: { hosts?: string[]; secretName?: string }[];
    rules: { host?: string; http: { paths: IngressPath[] } }[];
  };
}
interface ConfigMap extends K8sObject {
  data?: Record<string, string>;
}
interface Secret extends K8sObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

function kustomize(dir: string): K8sObject[] {
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', path.join(root, dir)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * MB,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(
      `\`kubectl kustomize ${dir}\` failed (kubectl with kustomize must be installed):\n${stderr || error}`,
    );
  }
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir}: ${document.errors[0].message}`);
    return document.toJS() as K8sObject;
  });
}

class Manifests {
  constructor(readonly objects: K8sObject[]) {}
  all<T extends K8sObject>(kind: string): T[] {
    return this.objects.filter((o) => o.kind === kind) as T[];
  }
  find<T extends K8sObject>(kind: string, name: string): T | undefined {
    return this.all<T>(kind).find((o) => o.metadata.name === name);
  }
  get<T extends K8sObject>(kind: string, name: string): T {
    const found = this.find<T>(kind, name);
    if (!found) throw new Error(`no ${kind} ${name} in the rendered manifests`);
    return found;
  }
  /** Pod templates of every workload, with a name for messages. */
  podTemplates(): { owner: string; template: PodTemplate }[] {
    return [
      ...this.all<Deployment>('Deployment').map((d) => ({
        owner: `Deployment ${d.metadata.name}`,
        template: d.spec.template,
      })),
      ...this.all<Job>('Job').map((j) => ({ owner: `Job ${j.metadata.name}`, template: j.spec.template })),
    ];
  }
  /** One pod of every workload, as NetworkPolicies see it. */
  pods(): PodEndpoint[] {
    return [...this.all<Deployment>('Deployment'), ...this.all<Job>('Job')].map((workload) => ({
      kind: 'pod',
      name: `${workload.kind} ${workload.metadata.name}`,
      namespace: workload.metadata.namespace ?? 'default',
      labels: workload.spec.template.metadata.labels ?? {},
      ports: workload.spec.template.spec.containers.flatMap((c) => c.ports ?? []),
    }));
  }
  /** The pod of a workload, by its app.kubernetes.io/name. */
  pod(name: string): PodEndpoint {
    const found = this.pods().find((p) => p.labels['app.kubernetes.io/name'] === name);
    if (!found) throw new Error(`no pod labelled ${name}`);
    return found;
  }
  /** The one ConfigMap generated as platform-config (its name carries a content hash). */
  platformConfig(): ConfigMap {
    const found = this.all<ConfigMap>('ConfigMap').filter((c) =>
      /^platform-config(-[a-z0-9]+)?$/.test(c.metadata.name),
    );
    expect(found).toHaveLength(1);
    return found[0];
  }
}

const selects = (selector: Labels | undefined, labels: Labels | undefined): boolean =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

function mainContainer(deployment: Deployment): Container {
  const containers = deployment.spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0];
}

/** The container port a probe or Service targets (a port name or a number). */
function containerPort(container: Container, port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return container.ports?.some((p) => p.containerPort === port) ? port : undefined;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Effective value of a variable in a container: its own env first (a value or a key of the ConfigMap), then the ConfigMap if it loads all of it. */
function effectiveEnv(container: Container, config: ConfigMap, name: string): string | undefined {
  const own = container.env?.find((e) => e.name === name);
  if (own?.valueFrom?.configMapKeyRef?.name === config.metadata.name)
    return config.data?.[own.valueFrom.configMapKeyRef.key];
  if (own) return own.value;
  const loadsAll = container.envFrom?.some((source) => source.configMapRef?.name === config.metadata.name);
  return loadsAll ? config.data?.[name] : undefined;
}

// Platform variables, and the Node runtime's own (V8 tuning of a deployable).
const variableNames = new Set<string>([...variables.map((v) => v.name), 'NODE_OPTIONS']);
const sensitiveNames = variables.filter((v) => v.sensitive).map((v) => v.name);

type PodEndpoint = Extract<Endpoint, { kind: 'pod' }>;

/** Kubernetes memory quantities (`384Mi`, `1Gi`, `512M`) in bytes. */
function quantityBytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(quantity);
  if (!match) throw new Error(`not a memory quantity: ${quantity}`);
  const units = { '': 1, Ki: 1024, Mi: MB, Gi: 1024 * MB, k: 1e3, M: 1e6, G: 1e9 };
  return Number(match[1]) * units[(match[2] ?? '') as keyof typeof units];
}

// Objects of custom resources have no schema in kubernetes-models: these (and only these) are skipped.
const customResourceKinds = ['keda.sh/v1alpha1 ScaledObject', 'keda.sh/v1alpha1 TriggerAuthentication'];

/** Problems per object against the Kubernetes API schemas (deploy/k8s-schema.mjs), or `no schema`. */
function schemaProblems(objects: K8sObject[]): string[] {
  const output = execFileSync(process.execPath, [path.join(root, 'deploy/k8s-schema.mjs')], {
    cwd: root,
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 16 * MB,
  });
  const results = JSON.parse(output) as { schema: boolean; problems?: string[] }[];
  return results.flatMap((result, index) => {
    const object = objects[index];
    const name = `${object.apiVersion} ${object.kind} ${object.metadata?.name}`;
    if (!result.schema) {
      return customResourceKinds.includes(`${object.apiVersion} ${object.kind}`) ? [] : [`${name}: no schema`];
    }
    return (result.problems ?? []).map((problem) => `${name}: ${problem}`);
  });
}

/** Every document of a YAML file. */
const yamlDocuments = (file: string) => parseAllDocuments(read(file)).map((d) => d.toJS() as K8sObject);

/**
 * A setting as a Deployment's container sees it: its own env, the ConfigMap, else the app's default
 * (with the `{NAME}` references of libs/config's defaults resolved).
 */
function settingOf(k8s: Manifests, config: ConfigMap, app: Deployable, name: string): string | undefined {
  const container = mainContainer(k8s.get<Deployment>('Deployment', app));
  const raw = effectiveEnv(container, config, name) ?? variables.find((v) => v.name === name)?.defaultFor(app);
  return raw?.replace(/\{(\w+)\}/g, (_match, reference: string) => settingOf(k8s, config, app, reference) ?? '');
}

/** The in-cluster calls the configuration makes: each app's `*_URL` settings that name a Service of the manifests. */
function internalCalls(
  k8s: Manifests,
  config: ConfigMap,
): { app: Deployable; variable: string; target: string; port: number }[] {
  return httpApps.flatMap((app) =>
    variables
      .filter((v) => v.name.endsWith('_URL') && (v.apps as readonly string[]).includes(app))
      .flatMap((v) => {
        const value = settingOf(k8s, config, app, v.name);
        if (!value || !URL.canParse(value)) return [];
        const url = new URL(value);
        const service = k8s.find<Service>('Service', url.hostname);
        const servicePort = service?.spec.ports.find((p) => p.port === Number(url.port || 80));
        if (!service || !servicePort) return [];
        const target = k8s
          .all<Deployment>('Deployment')
          .find((d) => selects(service.spec.selector, d.spec.template.metadata.labels));
        const port = target && containerPort(mainContainer(target), servicePort.targetPort ?? servicePort.port);
        return target && port ? [{ app, variable: v.name, target: target.metadata.name, port }] : [];
      }),
  );
}

// Endpoints outside the namespace, as the NetworkPolicies name them (deploy/k8s/base/network-policies.yaml).
const outside = {
  ingressController: {
    kind: 'pod',
    name: 'ingress-nginx-controller',
    namespace: 'ingress-nginx',
    labels: { 'app.kubernetes.io/name': 'ingress-nginx' },
    ports: [],
  },
  prometheus: {
    kind: 'pod',
    name: 'prometheus',
    namespace: 'monitoring',
    labels: { 'app.kubernetes.io/name': 'prometheus' },
    ports: [],
  },
  otherNamespace: {
    kind: 'pod',
    name: 'stranger',
    namespace: 'default',
    labels: { 'app.kubernetes.io/name': 'chat-service' },
    ports: [],
  },
  dns: {
    kind: 'pod',
    name: 'coredns',
    namespace: 'kube-system',
    labels: { 'k8s-app': 'kube-dns' },
    ports: [{ name: 'dns', containerPort: 53 }],
  },
  internet: { kind: 'address', ip: '203.0.113.10' },
  metadataServer: { kind: 'address', ip: '169.254.169.254' },
} satisfies Record<string, Endpoint>;

/** An Ingress carries a profile's label and ingress-nginx annotations that meet its needs. */
function expectIngressProfile(ingress: Ingress | undefined, profile: EdgeProfile): void {
  const annotations = ingress?.metadata.annotations ?? {};
  const annotation = (name: string) => annotations[`nginx.ingress.kubernetes.io/${name}`];
  const needs = profileNeeds[profile];
  expect(ingress?.metadata.labels?.['federation-platform/edge-profile']).toBe(profile);
  const body = bytes(annotation('proxy-body-size') ?? '1m');
  expect(body).toBeGreaterThanOrEqual(needs.minBody);
  if (needs.maxBody) expect(body).toBeLessThanOrEqual(needs.maxBody);
  for (const timeout of ['proxy-read-timeout', 'proxy-send-timeout']) {
    const value = Number(annotation(timeout) ?? 60);
    expect(value).toBeGreaterThanOrEqual(needs.minTimeout);
    if (needs.maxTimeout) expect(value).toBeLessThanOrEqual(needs.maxTimeout);
  }
  expect(annotation('proxy-buffering') === 'off').toBe(needs.unbuffered === true);
  expect(annotation('proxy-request-buffering') === 'off').toBe(needs.streamedUpload === true);
}

// =============================================================================================
describe('route table (deploy/routes.ts)', () => {
  it('implements the Ingress path matching rules', () => {
    const prefix = (p: string) => ({ path: p, pathType: 'Prefix' as PathType });
    const exact = (p: string) => ({ path: p, pathType: 'Exact' as PathType });
    // The examples table of the Kubernetes Ingress documentation.
    expect(matches(prefix('/'), '/anything')).toBe(true);
    expect(matches(exact('/foo'), '/foo')).toBe(true);
    expect(matches(exact('/foo'), '/bar')).toBe(false);
    expect(matches(exact('/foo'), '/foo/')).toBe(false);
    expect(matches(exact('/foo/'), '/foo')).toBe(false);
    expect(matches(prefix('/foo'), '/foo')).toBe(true);
    expect(matches(prefix('/foo'), '/foo/')).toBe(true);
    expect(matches(prefix('/foo/'), '/foo')).toBe(true);
    expect(matches(prefix('/aaa/bb'), '/aaa/bbb')).toBe(false);
    expect(matches(prefix('/aaa/bbb'), '/aaa/bbb/ccc')).toBe(true);
    expect(matches(prefix('/aaa/bbb'), '/aaa/bbbxyz')).toBe(false);
    // Longest match wins; Exact beats Prefix of the same length.
    const candidates = [prefix('/'), prefix('/aaa'), exact('/aaa'), prefix('/aaa/bbb')];
    expect(resolve(candidates, '/aaa/bbb/c')).toBe(candidates[3]);
    expect(resolve(candidates, '/aaa')).toBe(candidates[2]);
    expect(resolve(candidates, '/aaa/x')).toBe(candidates[1]);
    expect(resolve(candidates, '/zzz')).toBe(candidates[0]);
  });

  it('sends every path of the spec to its app and nothing else anywhere', () => {
    for (const { path: p, app } of specPaths) expect([p, resolve(routes, p)?.app]).toEqual([p, app]);
    for (const p of unroutedPaths) expect([p, resolve(routes, p)]).toEqual([p, undefined]);
  });

  it('has no duplicate paths and covers every public app', () => {
    const keys = routes.map((r) => `${r.pathType} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(routes.map((r) => r.app))).toEqual(new Set(publicApps));
    expect([...httpApps].sort()).toEqual([...serviceNames, webService].sort());
    expect(publicApps).not.toContain('agent-runtime');
    expect(publicApps).toContain(webService);
    for (const app of publicApps) expect(specPaths.some((s) => s.app === app)).toBe(true);
  });

  it("routes the web app's paths to web-service with the static profile, `/` exactly, so no unknown path reaches it", () => {
    const web = routes.filter((r) => r.app === webService);
    expect(web.map((r) => `${r.pathType} ${r.path}`).sort()).toEqual(
      [
        'Exact /',
        'Exact /callback',
        'Exact /signed-out',
        'Prefix /c',
        'Prefix /console',
        'Prefix /assets',
        'Exact /favicon.svg',
      ].sort(),
    );
    for (const route of web) expect([route.path, route.profile]).toEqual([route.path, 'static']);
    // Not one of serviceNames (the services, with PostgreSQL and Redis): libs/config gives it neither.
    expect(serviceNames as readonly string[]).not.toContain(webService);
    expect(keepsData(webService)).toBe(false);
    for (const app of serviceNames) expect([app, keepsData(app)]).toEqual([app, true]);
    // The sandbox is web-service's second listener, where its default (PORT + 1) puts it.
    expect(sandboxRoute.app).toBe(webService);
    expect(loadConfig(webService, { PORT: '8080' }).web.sandboxPort).toBe(sandboxRoute.port);
  });
});

// =============================================================================================
describe('Kubernetes manifests (kubectl kustomize deploy/k8s)', () => {
  let k8s: Manifests;
  let config: ConfigMap;
  beforeAll(() => {
    k8s = new Manifests(kustomize('deploy/k8s'));
    config = k8s.platformConfig();
  });

  it('labels every object as part of the platform and puts it in one namespace', () => {
    expect(k8s.objects.length).toBeGreaterThan(0);
    for (const object of k8s.objects) {
      expect([object.kind, object.metadata.name, object.metadata.labels?.['app.kubernetes.io/part-of']]).toEqual([
        object.kind,
        object.metadata.name,
        'federation-platform',
      ]);
      expect(object.metadata.namespace).toBe('federation-platform');
    }
    for (const { owner, template } of k8s.podTemplates()) {
      expect([owner, template.metadata.labels?.['app.kubernetes.io/part-of']]).toEqual([owner, 'federation-platform']);
    }
  });

  describe.each(httpApps)('%s', (app) => {
    it('has a Deployment with probes on /healthz and /readyz at the http port (8080)', () => {
      const deployment = k8s.get<Deployment>('Deployment', app);
      expect(deployment.metadata.labels?.['app.kubernetes.io/name']).toBe(app);
      const template = deployment.spec.template;
      expect(template.metadata.labels?.['app.kubernetes.io/name']).toBe(app);
      expect(selects(deployment.spec.selector.matchLabels, template.metadata.labels)).toBe(true);

      const container = mainContainer(deployment);
      expect(container.image).toMatch(new RegExp(`(^|/)${app}(:|@)`));
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'http', containerPort: 8080 }));
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(containerPort(container, container.livenessProbe?.httpGet?.port)).toBe(8080);
      expect(containerPort(container, container.readinessProbe?.httpGet?.port)).toBe(8080);
      if (container.startupProbe) {
        expect(container.startupProbe.httpGet?.path).toBe('/healthz');
        expect(containerPort(container, container.startupProbe.httpGet?.port)).toBe(8080);
      }
      // The app listens where the probes look.
      expect(effectiveEnv(container, config, 'PORT') ?? '8080').toBe('8080');
      expect(effectiveEnv(container, config, 'HOST')).toBe('0.0.0.0');
    });

    it('has resource requests and limits and a locked-down security context', () => {
      const deployment = k8s.get<Deployment>('Deployment', app);
      const container = mainContainer(deployment);
      expect(Object.keys(container.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(container.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext?.runAsNonRoot ?? container.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).not.toBe(0);
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
      expect(container.securityContext?.capabilities?.drop).toContain('ALL');
    });

    if (keepsData(app)) {
      it('reads the shared ConfigMap and the platform-secrets Secret', () => {
        const container = mainContainer(k8s.get<Deployment>('Deployment', app));
        expect(container.envFrom).toContainEqual({ configMapRef: { name: config.metadata.name } });
        expect(container.envFrom).toContainEqual({ secretRef: { name: 'platform-secrets' } });
        for (const variable of container.env ?? []) expect(variableNames).toContain(variable.name);
      });
    } else {
      // web-service keeps nothing and holds no credential: the Secret (DATABASE_URL, REDIS_URL, keys) is
      // none of its business, nor are the services' settings in the ConfigMap.
      it('reads exactly the settings its app reads, from the shared ConfigMap key by key, and no Secret', () => {
        const container = mainContainer(k8s.get<Deployment>('Deployment', app));
        expect(container.envFrom ?? []).toEqual([]);
        expect(JSON.stringify(container)).not.toContain('platform-secrets');
        expect((container.env ?? []).map((e) => e.name).sort()).toEqual(variablesOf(app).sort());
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.configMapKeyRef;
          if (ref) {
            expect([variable.name, ref]).toEqual([variable.name, { name: config.metadata.name, key: variable.name }]);
            expect([variable.name, config.data?.[ref.key] !== undefined]).toEqual([variable.name, true]);
          } else {
            expect([variable.name, variable.value]).toEqual([variable.name, expect.any(String)]);
          }
        }
      });
    }

    it('gets a grace period longer than its preStop pause plus its drain time', () => {
      const deployment = k8s.get<Deployment>('Deployment', app);
      const container = mainContainer(deployment);
      // agent-runtime first lets its running turns finish (AGENT_DRAIN_SECONDS), then shuts down.
      const turnDrain = app === 'agent-runtime' ? Number(effectiveEnv(container, config, 'AGENT_DRAIN_SECONDS')) : 0;
      // web-service has no drain setting: it closes its listeners on SIGTERM and exits within a few seconds.
      const shutdown = readsVariable(app, 'SHUTDOWN_TIMEOUT_SECONDS')
        ? Number(effectiveEnv(container, config, 'SHUTDOWN_TIMEOUT_SECONDS') ?? '10')
        : 5;
      const drain = shutdown + turnDrain;
      const preStop = container.lifecycle?.preStop?.exec?.command;
      const pause = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(drain + pause);
      if (app === 'chat-service' || app === 'agent-protocols') {
        // SSE streams: more time than the default to end cleanly.
        expect(drain).toBeGreaterThanOrEqual(30);
        expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);
      }
      if (app === 'agent-runtime') {
        expect(turnDrain).toBe(300);
        expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(330);
      }
    });

    it('has a Service that selects exactly its pods on the http port', () => {
      const service = k8s.get<Service>('Service', app);
      const deployment = k8s.get<Deployment>('Deployment', app);
      expect(selects(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
      for (const other of k8s.all<Deployment>('Deployment').filter((d) => d.metadata.name !== app)) {
        expect([other.metadata.name, selects(service.spec.selector, other.spec.template.metadata.labels)]).toEqual([
          other.metadata.name,
          false,
        ]);
      }
      const port = service.spec.ports.find((p) => p.name === 'http');
      expect(port).toBeDefined();
      expect(containerPort(mainContainer(deployment), port?.targetPort ?? port?.port)).toBe(8080);
    });

    it('has a PodDisruptionBudget for its pods', () => {
      const budgets = k8s
        .all<Pdb>('PodDisruptionBudget')
        .filter((b) =>
          selects(b.spec.selector.matchLabels, k8s.get<Deployment>('Deployment', app).spec.template.metadata.labels),
        );
      expect(budgets).toHaveLength(1);
    });
  });

  describe('web-service', () => {
    it("listens on http (8080) and sandbox (8081), the ports its settings name, with probes on the app's port", () => {
      const container = mainContainer(k8s.get<Deployment>('Deployment', webService));
      expect(container.ports?.map((p) => [p.name, p.containerPort])).toEqual([
        ['http', 8080],
        [sandboxRoute.portName, sandboxRoute.port],
      ]);
      expect(effectiveEnv(container, config, 'PORT')).toBe('8080');
      expect(effectiveEnv(container, config, 'WEB_SANDBOX_PORT')).toBe(String(sandboxRoute.port));
      for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
        expect(containerPort(container, probe?.httpGet?.port)).toBe(8080);
      }
      expect([container.startupProbe?.httpGet?.path, container.readinessProbe?.httpGet?.path]).toEqual([
        '/healthz',
        '/readyz',
      ]);
      // It serves no /metrics: nothing asks Prometheus to scrape it.
      const { annotations } = k8s.get<Deployment>('Deployment', webService).spec.template.metadata;
      expect(annotations?.['prometheus.io/scrape']).toBeUndefined();
      // Its settings load as its app reads them, and put the sandbox on another origin than the app.
      const env = Object.fromEntries(
        variablesOf(webService).map((name) => [name, effectiveEnv(container, config, name) ?? '']),
      );
      const loaded = loadConfig(webService, env);
      expect(new URL(loaded.web.sandboxUrl).origin).not.toBe(new URL(loaded.http.publicUrl).origin);
    });

    it('has a Service with both ports, each to the container port of its name', () => {
      const service = k8s.get<Service>('Service', webService);
      const container = mainContainer(k8s.get<Deployment>('Deployment', webService));
      expect(service.spec.ports.map((p) => [p.name, p.port, containerPort(container, p.targetPort ?? p.port)])).toEqual(
        [
          ['http', 8080, 8080],
          [sandboxRoute.portName, sandboxRoute.port, sandboxRoute.port],
        ],
      );
    });
  });

  it('has no other Deployments than the six services and web-service', () => {
    expect(
      k8s
        .all<Deployment>('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([...httpApps].sort());
  });

  it('autoscales every Deployment (all are stateless) with an HPA that owns the replicas and keeps CPU as a signal', () => {
    const hpas = k8s.all<Hpa>('HorizontalPodAutoscaler');
    const deployments = k8s.all<Deployment>('Deployment').map((d) => d.metadata.name);
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([...deployments].sort());
    for (const hpa of hpas) {
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      const { apiVersion, kind, name } = hpa.spec.scaleTargetRef;
      expect([apiVersion, kind]).toEqual(['apps/v1', 'Deployment']);
      const deployment = k8s.get<Deployment>('Deployment', name);
      // The autoscaler owns the replica count; a fixed one would be reset by every apply.
      expect([name, deployment.spec.replicas]).toEqual([name, undefined]);
      expect(hpa.spec.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas ?? 1);
      expect(hpa.spec.metrics).toContainEqual({
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } },
      });
      // Utilization is relative to the CPU request, which must therefore exist.
      expect(mainContainer(deployment).resources?.requests?.cpu).toBeDefined();
    }
  });

  it('scales chat-service and agent-protocols on open SSE streams per pod, within the measured budget', () => {
    for (const app of ['chat-service', 'agent-protocols']) {
      const metric = k8s
        .get<Hpa>('HorizontalPodAutoscaler', app)
        .spec.metrics?.find((m) => m.type === 'Pods' && m.pods?.metric.name === 'sse_streams_active');
      expect([app, metric?.pods?.target.type]).toEqual([app, 'AverageValue']);
      const target = Number(metric?.pods?.target.averageValue);
      // docs/benchmarks.md, "Chat relay, 2026-11-25": 10,000 idle streams per chat-service instance, about 150 MiB + 57 KiB a stream.
      expect(target).toBeGreaterThan(0);
      expect(target).toBeLessThanOrEqual(10_000 / 4);
      if (app === 'chat-service') {
        const request = quantityBytes(
          mainContainer(k8s.get<Deployment>('Deployment', app)).resources?.requests?.memory ?? '0',
        );
        expect(150 * MB + target * 57 * 1024).toBeLessThanOrEqual(request);
      }
    }
  });

  it("scales agent-runtime on the run queue's waiting and running jobs, below one pod's concurrency", () => {
    const metric = k8s
      .get<Hpa>('HorizontalPodAutoscaler', 'agent-runtime')
      .spec.metrics?.find((m) => m.type === 'External');
    expect(metric?.external?.metric).toEqual({
      name: 'run_queue_jobs',
      selector: { matchExpressions: [{ key: 'state', operator: 'In', values: ['waiting', 'active'] }] },
    });
    expect(metric?.external?.target.type).toBe('AverageValue');
    const concurrency = Number(settingOf(k8s, config, 'agent-runtime', 'AGENT_CONCURRENCY'));
    const target = Number(metric?.external?.target.averageValue);
    // A replica is added before the running ones are full, never only once jobs wait.
    expect(target).toBeGreaterThan(0);
    expect(target).toBeLessThan(concurrency);
  });

  it('asks only for custom and external metrics that the prometheus-adapter example serves', () => {
    const [adapter] = yamlDocuments('deploy/k8s/examples/prometheus-adapter-rules.yaml') as ConfigMap[];
    const rules = parse(adapter.data?.['config.yaml'] ?? '') as Record<
      'rules' | 'externalRules',
      { seriesQuery: string; name: { as: string }; resources: { overrides: Record<string, { resource: string }> } }[]
    >;
    const served = (list: 'rules' | 'externalRules') => new Set(rules[list].map((r) => r.name.as));
    const asked = k8s.all<Hpa>('HorizontalPodAutoscaler').flatMap((h) => h.spec.metrics ?? []);
    const podsMetrics = asked.flatMap((m) => (m.pods ? [m.pods.metric.name] : []));
    const externalMetrics = asked.flatMap((m) => (m.external ? [m.external.metric.name] : []));
    expect(podsMetrics).toContain('sse_streams_active');
    expect(externalMetrics).toContain('run_queue_jobs');
    for (const name of podsMetrics) expect(served('rules')).toContain(name);
    for (const name of externalMetrics) expect(served('externalRules')).toContain(name);
    // Per pod for Pods metrics; per namespace (the HPA's) for external ones.
    for (const rule of rules.rules)
      expect(
        Object.values(rule.resources.overrides)
          .map((o) => o.resource)
          .sort(),
      ).toEqual(['namespace', 'pod']);
    for (const rule of rules.externalRules)
      expect(rule.resources.overrides.namespace).toEqual({ resource: 'namespace' });
  });

  it('keeps KEDA as a documented alternative for the same Deployments', () => {
    for (const file of ['deploy/k8s/examples/keda-agent-runtime.yaml', 'deploy/k8s/examples/keda-chat-service.yaml']) {
      const scaled = yamlDocuments(file).filter((o) => o.kind === 'ScaledObject') as (K8sObject & {
        spec: { scaleTargetRef: { name: string }; triggers: { type: string; metadata: Record<string, string> }[] };
      })[];
      expect(scaled).toHaveLength(1);
      const { name } = scaled[0].spec.scaleTargetRef;
      expect(k8s.find('Deployment', name)).toBeDefined();
      const [metric] = name === 'agent-runtime' ? ['run_queue_jobs'] : ['sse_streams_active'];
      expect(scaled[0].spec.triggers.some((t) => t.type === 'prometheus' && t.metadata.query.includes(metric))).toBe(
        true,
      );
      expect(scaled[0].spec.triggers.some((t) => t.type === 'cpu')).toBe(true);
    }
  });

  it('runs `platformctl migrate` in a Job, with the release image and the database Secret', () => {
    const jobs = k8s.all<Job>('Job');
    expect(jobs).toHaveLength(1);
    const pod = jobs[0].spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.containers).toHaveLength(1);
    const [container] = pod.containers;
    const argv = [...(container.command ?? []), ...(container.args ?? [])];
    expect(argv).toEqual(['node', '/app/dist/apps/platformctl/src/main.js', 'migrate']);
    expect(container.image).toMatch(/(^|\/)platformctl(:|@)/);
    // Without DATABASE_URL platformctl would migrate an embedded database: the key is required.
    expect(container.env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'platform-secrets', key: 'DATABASE_URL' } },
    });
    expect(container.envFrom).toContainEqual({ configMapRef: { name: config.metadata.name } });
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(jobs[0].metadata.labels?.['app.kubernetes.io/component']).toBe('migration');
  });

  it('pins every workload, the migration included, to one registry and release tag', () => {
    const images = k8s.podTemplates().flatMap(({ template }) => template.spec.containers.map((c) => c.image));
    const tags = new Set(images.map((image) => image.split(':').pop()));
    expect(tags.size).toBe(1);
    expect(tags).not.toContain('latest');
    const registries = new Set(images.map((image) => image.slice(0, image.lastIndexOf('/'))));
    expect(registries.size).toBe(1);
  });

  it('keeps settings in the ConfigMap and credentials only in the operator-created Secret', () => {
    const keys = Object.keys(config.data ?? {});
    for (const key of keys) expect(variableNames).toContain(key);
    for (const key of sensitiveNames) expect(keys).not.toContain(key);
    // Never shipped: applying the manifests must not overwrite real credentials.
    expect(k8s.all('Secret')).toEqual([]);
    // Everything a service requires comes from one of the two.
    const template = parse(read('deploy/k8s/examples/platform-secrets.yaml')) as Secret;
    expect(template.metadata.name).toBe('platform-secrets');
    const secretKeys = Object.keys(template.stringData ?? {});
    for (const value of Object.values(template.stringData ?? {})) expect(value).toContain('CHANGE_ME');
    for (const variable of variables.filter((v) => v.requiredIn.length > 0)) {
      expect([...keys, ...secretKeys]).toContain(variable.name);
    }
  });

  it('ships the optional keys of the Secret template commented out, so that a placeholder left in stops no service', () => {
    const text = read('deploy/k8s/examples/platform-secrets.yaml');
    const active = Object.keys((parse(text) as Secret).stringData ?? {});
    const commented = [...text.matchAll(/^ {2}# ([A-Z][A-Z0-9_]+): CHANGE_ME$/gm)].map((m) => m[1]);
    // Every credential is there, once, active or ready to uncomment.
    expect([...active, ...commented].sort()).toEqual([...sensitiveNames].sort());
    // The ones a service refuses at boot with the placeholder are among the commented (the check can fail).
    for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'S3_SECRET_ACCESS_KEY', 'SMTP_URL']) {
      expect([name, commented.includes(name)]).toEqual([name, true]);
    }
    // Active: what a service requires, what must be set before any use (the encryption key of tool servers'
    // headers) and the agent's credential; nothing optional.
    const required: string[] = variables.filter((v) => v.requiredIn.length > 0).map((v) => v.name);
    expect(active.filter((name) => !required.includes(name)).sort()).toEqual([
      'AGENT_GATEWAY_API_KEY',
      'TOOLSERVER_SECRET_KEY',
    ]);
    // A placeholder left in AGENT_GATEWAY_API_KEY leaves every service starting (the agent's turns fail, and
    // `config check` says so); the commented keys would not.
    const valid = {
      DATABASE_URL: 'postgres://platform:x@db.example.com:5432/platform',
      REDIS_URL: 'rediss://default:x@redis.example.com:6379',
      KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      TOOLSERVER_SECRET_KEY: Buffer.alloc(32, 2).toString('base64'),
    };
    for (const app of serviceNames) {
      expect(() => loadConfig(app, { ...valid, AGENT_GATEWAY_API_KEY: 'CHANGE_ME' })).not.toThrow();
      expect(() => loadConfig(app, { ...valid, OTEL_EXPORTER_OTLP_HEADERS: 'CHANGE_ME' })).toThrow(
        /OTEL_EXPORTER_OTLP_HEADERS/,
      );
    }
  });

  it("fetches signing keys and the agent's token in-cluster from auth-service and serves the public URLs on the Ingress host", () => {
    for (const [name, endpoint] of [
      ['AUTH_JWKS_URL', '/federation/auth/v1/jwks'],
      ['AGENT_TOKEN_URL', '/federation/auth/v1/token'],
    ]) {
      const url = new URL(config.data?.[name] ?? '');
      const [host, port] = [url.hostname, Number(url.port || 80)];
      expect([name, host, url.pathname]).toEqual([name, 'auth-service', endpoint]);
      expect(k8s.get<Service>('Service', host).spec.ports.map((p) => p.port)).toContain(port);
      expect(resolve(routes, url.pathname)?.app).toBe('auth-service');
    }
    // The agent's NetworkPolicies allow that call (the https egress to the public host would not reach an
    // ingress controller inside the cluster on every CNI).
    const policies = new NetworkPolicies(k8s.all<NetworkPolicy & K8sObject>('NetworkPolicy'), 'federation-platform');
    expect(policies.allows(k8s.pod('agent-runtime'), k8s.pod('auth-service'), 8080)).toBe(true);

    // The app's host: every Ingress but the sandbox's (below).
    const appIngresses = k8s.all<Ingress>('Ingress').filter((i) => i.metadata.name !== 'web-sandbox');
    const hosts = new Set(appIngresses.flatMap((i) => i.spec.rules.map((r) => r.host)));
    expect(hosts.size).toBe(1);
    const [ingressHost] = hosts;
    expect(new URL(config.data?.PUBLIC_URL ?? '').host).toBe(ingressHost);
    expect(new URL(config.data?.AUTH_URL ?? '').host).toBe(ingressHost);
    for (const ingress of appIngresses) {
      expect(ingress.spec.tls?.flatMap((t) => t.hosts ?? [])).toContain(ingressHost);
    }
  });

  it("serves the UI resource sandbox on a host of its own, WEB_SANDBOX_URL's, every path to web-service's sandbox port, over TLS", () => {
    const sandbox = k8s.get<Ingress>('Ingress', 'web-sandbox');
    const appHost = new URL(config.data?.PUBLIC_URL ?? '').hostname;
    const sandboxUrl = new URL(config.data?.WEB_SANDBOX_URL ?? '');
    expect(sandbox.spec.rules.map((r) => r.host)).toEqual([sandboxUrl.hostname]);
    expect(sandboxUrl.hostname).not.toBe(appHost);
    // Not a subdomain of the app's host either (the variable's advice: the two as far apart as they can be).
    expect(sandboxUrl.hostname.endsWith(`.${appHost}`)).toBe(false);
    expect(sandboxUrl.protocol).toBe('https:');
    expect(sandbox.spec.tls?.flatMap((t) => t.hosts ?? [])).toEqual([sandboxUrl.hostname]);
    const paths = sandbox.spec.rules[0].http.paths;
    expect(paths.map((p) => [p.path, p.pathType, p.backend.service.name, p.backend.service.port.name])).toEqual([
      ['/', 'Prefix', webService, sandboxRoute.portName],
    ]);
    // That port is the sandbox listener (WEB_SANDBOX_PORT) of web-service's pods.
    const service = k8s.get<Service>('Service', webService);
    const servicePort = service.spec.ports.find((p) => p.name === sandboxRoute.portName);
    const container = mainContainer(k8s.get<Deployment>('Deployment', webService));
    expect(containerPort(container, servicePort?.targetPort)).toBe(
      Number(effectiveEnv(container, config, 'WEB_SANDBOX_PORT')),
    );
    // With the static profile's edge settings.
    expect(sandbox.metadata.labels?.['federation-platform/edge-profile']).toBe(sandboxRoute.profile);
  });

  it("mounts the model gateway's routing file as a directory from a valid ConfigMap, so edits reach running pods", () => {
    const deployment = k8s.get<Deployment>('Deployment', 'llm-gateway');
    const container = mainContainer(deployment) as Container & {
      volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
    };
    const file = container.env?.find((e) => e.name === 'LLM_GATEWAY_ROUTING_FILE')?.value ?? '';
    const mount = container.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
    expect(mount?.subPath).toBeUndefined();
    const volumes = (deployment.spec.template.spec as { volumes?: { name: string; configMap?: { name: string } }[] })
      .volumes;
    const mapName = volumes?.find((v) => v.name === mount?.name)?.configMap?.name as string;
    const map = k8s.get<ConfigMap>('ConfigMap', mapName);
    const routing = map.data?.[path.basename(file)] as string;
    expect(parseRoutingFile(routing).resolve('demo')).toBeDefined();
    expect(routing).toBe(read('deploy/k8s/base/gateway-routing.yaml'));
  });

  describe('NetworkPolicies', () => {
    let policies: NetworkPolicies;
    let pods: PodEndpoint[];
    beforeAll(() => {
      policies = new NetworkPolicies(k8s.all<NetworkPolicy & K8sObject>('NetworkPolicy'), 'federation-platform');
      pods = k8s.pods();
    });
    const appPods = () => pods.filter((p) => p.labels['app.kubernetes.io/component'] !== 'migration');

    it('denies all traffic in the namespace by default, both ways', () => {
      const deny = policies.policies.filter(
        (p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress,
      );
      expect(deny.map((p) => [...(p.spec.policyTypes ?? [])].sort())).toEqual([['Egress', 'Ingress']]);
      for (const pod of pods) {
        expect([pod.name, policies.selecting(pod, 'Ingress').length > 0]).toEqual([pod.name, true]);
        expect([pod.name, policies.selecting(pod, 'Egress').length > 0]).toEqual([pod.name, true]);
      }
    });

    it('selects existing pods with every policy and every peer inside the namespace', () => {
      for (const policy of policies.policies) {
        const name = policy.metadata.name;
        expect([name, pods.some((p) => selectorMatches(policy.spec.podSelector, p.labels))]).toEqual([name, true]);
        for (const rule of [...(policy.spec.ingress ?? []), ...(policy.spec.egress ?? [])]) {
          for (const peer of [...(rule.from ?? []), ...(rule.to ?? [])]) {
            if (peer.podSelector && !peer.namespaceSelector) {
              expect([name, pods.some((p) => selectorMatches(peer.podSelector, p.labels))]).toEqual([name, true]);
            }
          }
        }
      }
    });

    it('opens only ports that the pods behind them listen on', () => {
      const listensOn = (pod: PodEndpoint, port: number | string | undefined) =>
        pod.ports.some((p) => p.containerPort === port || p.name === port);
      for (const policy of policies.policies) {
        const selected = pods.filter((p) => selectorMatches(policy.spec.podSelector, p.labels));
        for (const rule of policy.spec.ingress ?? []) {
          for (const { port } of rule.ports ?? []) {
            for (const pod of selected)
              expect([policy.metadata.name, pod.name, port, listensOn(pod, port)]).toEqual([
                policy.metadata.name,
                pod.name,
                port,
                true,
              ]);
          }
        }
        for (const rule of policy.spec.egress ?? []) {
          const peers = (rule.to ?? []).filter((peer) => peer.podSelector && !peer.namespaceSelector);
          const targets = pods.filter((p) => peers.some((peer) => selectorMatches(peer.podSelector, p.labels)));
          for (const { port } of rule.ports ?? []) {
            for (const pod of targets)
              expect([policy.metadata.name, pod.name, port, listensOn(pod, port)]).toEqual([
                policy.metadata.name,
                pod.name,
                port,
                true,
              ]);
          }
        }
      }
    });

    it("lets the ingress controller reach the public services on 8080 and web-service's sandbox on 8081, and nothing else", () => {
      for (const pod of pods) {
        const app = pod.labels['app.kubernetes.io/name'];
        const isPublic = (publicApps as readonly string[]).includes(app);
        expect([app, policies.allows(outside.ingressController, pod, 8080)]).toEqual([app, isPublic]);
        expect([app, policies.allows(outside.ingressController, pod, sandboxRoute.port)]).toEqual([
          app,
          app === sandboxRoute.app,
        ]);
        expect([app, policies.allows(outside.ingressController, pod, 9090)]).toEqual([app, false]);
        expect([app, policies.allows(outside.otherNamespace, pod, 8080)]).toEqual([app, false]);
      }
    });

    it('lets Prometheus scrape /metrics of every service, agent-runtime included, and not web-service, which has none', () => {
      for (const pod of appPods()) {
        const scraped = pod.labels['app.kubernetes.io/name'] !== webService;
        expect([pod.name, policies.allows(outside.prometheus, pod, 8080)]).toEqual([pod.name, scraped]);
      }
    });

    it('allows exactly the calls between services that the configuration names (*_URL settings)', () => {
      const calls = internalCalls(k8s, config);
      // The derivation sees the calls the code makes: signing keys, the agent's models, embeddings.
      expect(calls).toContainEqual({
        app: 'chat-service',
        variable: 'AUTH_JWKS_URL',
        target: 'auth-service',
        port: 8080,
      });
      expect(calls).toContainEqual({
        app: 'agent-runtime',
        variable: 'AGENT_GATEWAY_URL',
        target: 'llm-gateway',
        port: 8080,
      });
      expect(calls).toContainEqual({
        app: 'admin-service',
        variable: 'MEMORY_GATEWAY_URL',
        target: 'llm-gateway',
        port: 8080,
      });
      // The agent's client-credentials token, in-cluster rather than through the ingress controller.
      expect(calls).toContainEqual({
        app: 'agent-runtime',
        variable: 'AGENT_TOKEN_URL',
        target: 'auth-service',
        port: 8080,
      });
      const needed = new Set(calls.map((c) => `${c.app} -> ${c.target}:${c.port}`));
      for (const from of httpApps) {
        for (const to of httpApps) {
          const path = `${from} -> ${to}:8080`;
          expect([path, policies.allows(k8s.pod(from), k8s.pod(to), 8080)]).toEqual([path, needed.has(path)]);
        }
      }
    });

    it('lets every pod resolve names, and those that keep data reach PostgreSQL and Redis (any address until an overlay narrows it); web-service neither', () => {
      for (const pod of pods) {
        const app = pod.labels['app.kubernetes.io/name'];
        const data = keepsData(app);
        expect([
          pod.name,
          policies.allows(pod, outside.dns, 53, 'UDP'),
          policies.allows(pod, outside.dns, 53, 'TCP'),
        ]).toEqual([pod.name, true, true]);
        expect([
          pod.name,
          policies.allows(pod, outside.internet, 5432),
          policies.allows(pod, outside.internet, 6379),
        ]).toEqual([pod.name, data, data]);
        expect([pod.name, policies.allows(pod, outside.internet, 8080)]).toEqual([pod.name, false]);
      }
    });

    it('lets out on HTTPS only the model gateway, the tool-server callers and auth-service, never to link-local addresses', () => {
      // admin-service connects to tool servers when the operator adds, changes or refreshes one.
      const https = [
        'llm-gateway',
        'agent-runtime',
        'chat-service',
        'agent-protocols',
        'admin-service',
        'auth-service',
      ];
      const smtp = ['admin-service', 'auth-service'];
      for (const pod of pods) {
        const app = pod.labels['app.kubernetes.io/name'];
        expect([app, policies.allows(pod, outside.internet, 443)]).toEqual([app, https.includes(app)]);
        expect([app, policies.allows(pod, outside.internet, 587)]).toEqual([app, smtp.includes(app)]);
        expect([
          app,
          policies.allows(pod, outside.metadataServer, 443),
          policies.allows(pod, outside.metadataServer, 80),
        ]).toEqual([app, false, false]);
      }
    });

    it('keeps the migration Job to DNS, PostgreSQL and Redis', () => {
      const job = pods.find((p) => p.labels['app.kubernetes.io/component'] === 'migration') as PodEndpoint;
      expect(job).toBeDefined();
      for (const app of httpApps) expect([app, policies.allows(job, k8s.pod(app), 8080)]).toEqual([app, false]);
      expect(policies.allows(job, outside.internet, 443)).toBe(false);
      expect(policies.allows(outside.ingressController, job, 8080)).toBe(false);
    });
  });

  describe('Ingress routing', () => {
    interface Rule {
      path: string;
      pathType: PathType;
      ingress: Ingress;
      backend: IngressPath['backend']['service'];
    }
    let rules: Rule[];
    beforeAll(() => {
      // The rules of the app's host (PUBLIC_URL's); the sandbox's host has its own test above.
      const appHost = new URL(config.data?.PUBLIC_URL ?? '').hostname;
      rules = k8s.all<Ingress>('Ingress').flatMap((ingress) =>
        ingress.spec.rules
          .filter((rule) => rule.host === appHost)
          .flatMap((rule) =>
            rule.http.paths.map((p) => ({
              path: p.path,
              pathType: p.pathType as PathType,
              ingress,
              backend: p.backend.service,
            })),
          ),
      );
    });

    it('uses the nginx class, Prefix/Exact paths, and no path twice', () => {
      for (const ingress of k8s.all<Ingress>('Ingress')) expect(ingress.spec.ingressClassName).toBe('nginx');
      for (const rule of rules) expect(['Prefix', 'Exact']).toContain(rule.pathType);
      const keys = rules.map((r) => `${r.pathType} ${r.path}`);
      expect(new Set(keys).size).toBe(keys.length);
    });

    it('has exactly the rules of the route table', () => {
      const actual = rules.map((r) => `${r.pathType} ${r.path} -> ${r.backend.name}`).sort();
      const expected = routes.map((r) => `${r.pathType} ${r.path} -> ${r.app}`).sort();
      expect(actual).toEqual(expected);
    });

    it.each(specPaths)('routes $path to $app', ({ path: requestPath, app }) => {
      const rule = resolve(rules, requestPath);
      expect(rule?.backend.name).toBe(app);
      // The backend Service exists, has the port, and selects that app's pods.
      const service = k8s.get<Service>('Service', rule?.backend.name ?? '');
      const port = rule?.backend.port;
      expect(service.spec.ports.some((p) => (port?.name ? p.name === port.name : p.port === port?.number))).toBe(true);
      const deployment = k8s.get<Deployment>('Deployment', app);
      expect(selects(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    });

    it.each(unroutedPaths)('does not route %s', (requestPath) => {
      expect(resolve(rules, requestPath)).toBeUndefined();
    });

    it('never exposes agent-runtime', () => {
      expect(rules.filter((r) => r.backend.name === 'agent-runtime')).toEqual([]);
    });

    it.each(routes)('$pathType $path gets the $profile edge settings', (route: Route) => {
      const rule = rules.find((r) => r.path === route.path && r.pathType === route.pathType);
      expectIngressProfile(rule?.ingress, route.profile);
    });

    it("gives the sandbox's host the static edge settings too", () => {
      expectIngressProfile(k8s.get<Ingress>('Ingress', 'web-sandbox'), sandboxRoute.profile);
    });
  });
});

// =============================================================================================
describe('local overlay (kubectl kustomize deploy/k8s/overlays/local)', () => {
  let local: Manifests;
  beforeAll(() => {
    local = new Manifests(kustomize('deploy/k8s/overlays/local'));
  });

  it('generates placeholder credentials for its own PostgreSQL and Redis', () => {
    const secret = local.all<Secret>('Secret').find((s) => s.metadata.name.startsWith('platform-secrets'));
    expect(secret).toBeDefined();
    const decoded = (key: string) => Buffer.from(secret?.data?.[key] ?? '', 'base64').toString('utf8');
    for (const key of Object.keys(secret?.data ?? {})) expect(sensitiveNames).toContain(key);
    expect(decoded('DATABASE_URL')).toContain('local-only');
    const databaseHost = new URL(decoded('DATABASE_URL')).hostname;
    const redisHost = new URL(decoded('REDIS_URL')).hostname;
    expect(local.find('Service', databaseHost)).toBeDefined();
    expect(local.find('Service', redisHost)).toBeDefined();
    expect(local.find('Namespace', 'federation-platform')).toBeDefined();
  });

  it('resolves every ConfigMap and Secret reference of every workload', () => {
    const names = (kind: string) => new Set(local.all(kind).map((o) => o.metadata.name));
    const [configMaps, secrets] = [names('ConfigMap'), names('Secret')];
    for (const { owner, template } of local.podTemplates()) {
      for (const container of template.spec.containers) {
        for (const source of container.envFrom ?? []) {
          if (source.configMapRef) expect([owner, configMaps.has(source.configMapRef.name)]).toEqual([owner, true]);
          if (source.secretRef) expect([owner, secrets.has(source.secretRef.name)]).toEqual([owner, true]);
        }
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) expect([owner, secrets.has(ref.name)]).toEqual([owner, true]);
          const configRef = variable.valueFrom?.configMapKeyRef;
          if (configRef) {
            expect([owner, configMaps.has(configRef.name)]).toEqual([owner, true]);
            const data = local.find<ConfigMap>('ConfigMap', configRef.name)?.data ?? {};
            expect([owner, configRef.key, configRef.key in data]).toEqual([owner, configRef.key, true]);
          }
        }
      }
    }
  });

  it("starts every workload: each app's configuration loads from its environment (empty values count as unset)", () => {
    const dataOf = (kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> => {
      const object = local.get<ConfigMap & Secret>(kind, name);
      if (kind === 'ConfigMap') return object.data ?? {};
      const decode = (value: string) => Buffer.from(value, 'base64').toString('utf8');
      return Object.fromEntries(Object.entries(object.data ?? {}).map(([key, value]) => [key, decode(value)]));
    };
    const workloads = [
      ...local
        .all<Deployment>('Deployment')
        .map((d) => ({ app: d.metadata.name as AppName, template: d.spec.template })),
      ...local.all<Job>('Job').map((j) => ({ app: 'platformctl' as AppName, template: j.spec.template })),
    ];
    expect(workloads.map((w) => w.app).sort()).toEqual([...httpApps, 'platformctl', 'postgres', 'redis'].sort());
    for (const { app, template } of workloads.filter((w) => [...httpApps, 'platformctl'].includes(w.app))) {
      const [container] = template.spec.containers;
      // As the kubelet builds it: envFrom in order, then env.
      const env: Record<string, string> = {};
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef) Object.assign(env, dataOf('ConfigMap', source.configMapRef.name));
        if (source.secretRef) Object.assign(env, dataOf('Secret', source.secretRef.name));
      }
      for (const variable of container.env ?? []) {
        const secretRef = variable.valueFrom?.secretKeyRef;
        const configRef = variable.valueFrom?.configMapKeyRef;
        env[variable.name] = secretRef
          ? (dataOf('Secret', secretRef.name)[secretRef.key] ?? '')
          : configRef
            ? (dataOf('ConfigMap', configRef.name)[configRef.key] ?? '')
            : (variable.value ?? '');
      }
      expect(env.OTEL_EXPORTER_OTLP_HEADERS ?? '').toBe('');
      let problem = 'none';
      try {
        loadConfig(app, env, '/app');
      } catch (error) {
        problem = (error as Error).message;
      }
      expect([app, problem]).toEqual([app, 'none']);
    }
  });

  it('autoscales on CPU only, so that it needs no prometheus-adapter', () => {
    const hpas = local.all<Hpa>('HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([...httpApps].sort());
    for (const hpa of hpas) {
      expect([hpa.metadata.name, hpa.spec.metrics?.map((m) => m.type)]).toEqual([hpa.metadata.name, ['Resource']]);
      expect(hpa.spec.minReplicas).toBe(1);
    }
  });

  it('lets only the platform pods that keep data reach its PostgreSQL and Redis, and those reach only these', () => {
    const policies = new NetworkPolicies(local.all<NetworkPolicy & K8sObject>('NetworkPolicy'), 'federation-platform');
    const [postgres, redis] = [local.pod('postgres'), local.pod('redis')];
    const platform = local.pods().filter((p) => p.labels['app.kubernetes.io/part-of'] === 'federation-platform');
    expect(platform.map((p) => p.name).sort()).toEqual(
      [...httpApps.map((a) => `Deployment ${a}`), 'Job platform-migrate'].sort(),
    );
    for (const pod of platform) {
      const app = pod.labels['app.kubernetes.io/name'];
      // web-service keeps nothing: neither side lets it in.
      const data = keepsData(app);
      expect([pod.name, policies.allows(pod, postgres, 5432), policies.allows(pod, redis, 6379)]).toEqual([
        pod.name,
        data,
        data,
      ]);
      expect([
        pod.name,
        policies.allows(pod, outside.internet, 5432),
        policies.allows(pod, outside.internet, 6379),
      ]).toEqual([pod.name, false, false]);
    }
    for (const stranger of [outside.ingressController, outside.otherNamespace, redis]) {
      expect([stranger.name, policies.allows(stranger, postgres, 5432)]).toEqual([stranger.name, false]);
    }
    expect(policies.allows(postgres, redis, 6379)).toBe(false);
    expect(policies.allows(outside.ingressController, local.pod('chat-service'), 8080)).toBe(true);
  });

  it('serves http://localhost:8080 without a host on the Ingresses, and the sandbox at http://sandbox.localhost:8080', () => {
    const config = local.platformConfig();
    expect(config.data?.PUBLIC_URL).toBe('http://localhost:8080');
    expect(config.data?.AUTH_URL).toBe('http://localhost:8080');
    for (const ingress of local.all<Ingress>('Ingress').filter((i) => i.metadata.name !== 'web-sandbox')) {
      for (const rule of ingress.spec.rules) expect(rule.host).toBeUndefined();
    }
    // Browsers resolve *.localhost to the loopback interface, so the same port-forward reaches the sandbox's
    // Ingress by its host: another origin than the app's, as web-service requires.
    const sandboxUrl = new URL(config.data?.WEB_SANDBOX_URL ?? '');
    expect(sandboxUrl.origin).toBe('http://sandbox.localhost:8080');
    expect(sandboxUrl.origin).not.toBe(new URL(config.data?.PUBLIC_URL ?? '').origin);
    expect(local.get<Ingress>('Ingress', 'web-sandbox').spec.rules.map((r) => r.host)).toEqual([sandboxUrl.hostname]);
  });
});

describe('Marketplace overlay (kubectl kustomize deploy/k8s/overlays/marketplace)', () => {
  let marketplace: Manifests;
  beforeAll(() => {
    marketplace = new Manifests(kustomize('deploy/k8s/overlays/marketplace'));
  });

  it('runs every app in the Marketplace edition, in a namespace of its own', () => {
    expect(marketplace.platformConfig().data?.EDITION).toBe('marketplace');
    for (const object of marketplace.objects) expect(object.metadata.namespace).toBe('federation-marketplace');
  });

  it('routes no public path to the model gateway, which stays for agent-runtime inside the cluster', () => {
    const paths = marketplace
      .all<Ingress>('Ingress')
      .flatMap((ingress) => ingress.spec.rules.flatMap((rule) => rule.http.paths.map((p) => p.path)));
    expect(paths).toContain('/api/v1/chat');
    expect(paths).toContain('/api/v1/auth');
    expect(paths.filter((p) => p.startsWith('/llm'))).toEqual([]);
    expect(marketplace.find('Deployment', 'llm-gateway')).toBeDefined();
    expect(marketplace.find('Service', 'llm-gateway')).toBeDefined();
    // Nor does the ingress controller reach it; agent-runtime still does.
    const policies = new NetworkPolicies(
      marketplace.all<NetworkPolicy & K8sObject>('NetworkPolicy'),
      'federation-marketplace',
    );
    const ingressController = { ...outside.ingressController };
    expect(policies.allows(ingressController, marketplace.pod('llm-gateway'), 8080)).toBe(false);
    expect(policies.allows(ingressController, marketplace.pod('chat-service'), 8080)).toBe(true);
    expect(policies.allows(marketplace.pod('agent-runtime'), marketplace.pod('llm-gateway'), 8080)).toBe(true);
  });

  it("serves the web app, the edition's admin panel: web-service and its routes as in the base, without the UI resource sandbox's host", () => {
    const base = new Manifests(kustomize('deploy/k8s/base'));
    const ofWebService = (manifests: Manifests) =>
      manifests.objects
        .filter((o) => o.metadata.labels?.['app.kubernetes.io/name'] === webService)
        .map((o) => `${o.kind} ${o.metadata.name}`)
        .sort();
    // Everything of web-service but the sandbox's Ingress: the admin panel has no chat, so no UI resource.
    expect(ofWebService(marketplace)).toEqual(ofWebService(base).filter((o) => o !== 'Ingress web-sandbox'));
    expect(marketplace.find('Deployment', webService)).toBeDefined();
    expect(marketplace.find('Ingress', 'web-sandbox')).toBeUndefined();
    const rules = marketplace.all<Ingress>('Ingress').flatMap((ingress) =>
      ingress.spec.rules.flatMap((rule) =>
        rule.http.paths.map((p) => ({
          path: p.path,
          pathType: p.pathType as PathType,
          backend: p.backend.service.name,
        })),
      ),
    );
    for (const route of routes.filter((r) => r.app === webService)) {
      expect([route.path, resolve(rules, route.path)?.backend]).toEqual([route.path, webService]);
    }
    // The ingress controller reaches it (its own policy, as in the base).
    const policies = new NetworkPolicies(
      marketplace.all<NetworkPolicy & K8sObject>('NetworkPolicy'),
      'federation-marketplace',
    );
    expect(policies.allows({ ...outside.ingressController }, marketplace.pod(webService), 8080)).toBe(true);
    // Every app of the base is there.
    expect(
      marketplace
        .all<Deployment>('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([...serviceNames, webService].sort());
  });
});

describe('Kubernetes API schemas (kubernetes-models; kubeconform is not installable here)', () => {
  it.each(['deploy/k8s', 'deploy/k8s/overlays/local', 'deploy/k8s/overlays/marketplace'])(
    'finds every object that `kubectl kustomize %s` renders valid',
    (dir) => {
      const objects = kustomize(dir);
      expect(objects.length).toBeGreaterThan(20);
      expect(schemaProblems(objects)).toEqual([]);
    },
  );

  it(`finds the examples valid, skipping only the custom resources (${customResourceKinds.join(', ')})`, () => {
    const files = [
      'keda-agent-runtime.yaml',
      'keda-chat-service.yaml',
      'platform-secrets.yaml',
      'prometheus-adapter-rules.yaml',
    ];
    const objects = files.flatMap((file) => yamlDocuments(`deploy/k8s/examples/${file}`));
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('reports what does not match the schema, and kinds it has no schema for', () => {
    const broken = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'broken' } };
    const problems = schemaProblems([
      { ...broken, spec: { maxReplicas: 'ten', scaleTargetRef: { kind: 'Deployment', name: 'x' } } } as K8sObject,
      { apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'typo' } },
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/^autoscaling\/v2 HorizontalPodAutoscaler broken: \/spec\/maxReplicas must be integer/),
      'apps/v1 Deploymnet typo: no schema',
    ]);
  });
});

// =============================================================================================
interface ComposePort {
  target: number;
  published?: string | number;
  host_ip?: string;
  protocol?: string;
}
interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  restart?: string;
  read_only?: boolean;
  tmpfs?: string[];
  security_opt?: string[];
  cap_drop?: string[];
  ports?: (string | ComposePort)[];
  volumes?: string[];
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * Compose's interpolation of one value (Compose Specification, "Interpolation"): `$$` is a literal `$`;
 * `${NAME}`, `$NAME`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`,
 * `${NAME:+other}`, `${NAME+other}`, with `:` meaning "unset or empty".
 */
function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_match, dollar?: string, name?: string, colon?: string, operator?: string, argument = '', bare?: string) => {
      if (dollar) return '$';
      if (bare) return env[bare] ?? '';
      const value = env[name as string];
      const missing = colon ? !value : value === undefined;
      if (operator === '-') return missing ? argument : (value as string);
      if (operator === '+') return missing ? '' : argument;
      if (operator === '?' && missing) throw new Error(`${name} is required: ${argument}`);
      return value ?? '';
    },
  );
}

/** Every string value of a parsed compose file interpolated (keys are not). */
function interpolateAll<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === 'string') return interpolate(value, env) as T;
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, env)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateAll(item, env)])) as T;
  }
  return value;
}

interface Location {
  exact: boolean;
  path: string;
  app?: string;
  profile?: string;
}

/** Reads `location [=] PATH { ... }` blocks (one level deep, as deploy/compose/nginx/default.conf is written). */
function nginxLocations(conf: string): Location[] {
  // Comments and quoted strings (the catch-all's JSON body has braces) do not count.
  const code = conf.replace(/#[^\n]*/g, '').replace(/'[^']*'|"[^"]*"/g, "''");
  return [...code.matchAll(/location\s+(=\s+)?(\S+)\s*\{([^{}]*)\}/g)].map((m) => ({
    exact: m[1] !== undefined,
    path: m[2],
    app: /set\s+\$app\s+([\w-]+)\s*;/.exec(m[3])?.[1],
    profile: /include\s+profiles\/([\w-]+)\.conf\s*;/.exec(m[3])?.[1],
  }));
}

/** The `server { ... }` blocks of an nginx file, comments and quoted strings blanked, with their `listen` addresses. */
function nginxServers(conf: string): { listen: string[]; body: string }[] {
  const code = conf.replace(/#[^\n]*/g, '').replace(/'[^']*'|"[^"]*"/g, "''");
  const servers: { listen: string[]; body: string }[] = [];
  for (const match of code.matchAll(/\bserver\s*\{/g)) {
    let depth = 1;
    let end = (match.index ?? 0) + match[0].length;
    for (; depth > 0 && end < code.length; end++) depth += code[end] === '{' ? 1 : code[end] === '}' ? -1 : 0;
    const body = code.slice((match.index ?? 0) + match[0].length, end - 1);
    // `listen` directives of the server itself, not of its locations.
    const own = body.replace(/\{[^{}]*\}/g, '');
    servers.push({ listen: [...own.matchAll(/\blisten\s+([^;\s]+)/g)].map((m) => m[1]), body });
  }
  return servers;
}

/** nginx's choice without regex locations: an exact match, else the longest prefix. */
function nginxResolve(locations: Location[], requestPath: string): Location | undefined {
  const exact = locations.find((l) => l.exact && l.path === requestPath);
  if (exact) return exact;
  return locations
    .filter((l) => !l.exact && requestPath.startsWith(l.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

/** An nginx profile's directives meet its needs. */
function expectNginxProfile(directives: Map<string, string>, profile: EdgeProfile): void {
  const needs = profileNeeds[profile];
  const body = bytes(directives.get('client_max_body_size') ?? '1m');
  expect(body).toBeGreaterThanOrEqual(needs.minBody);
  if (needs.maxBody) expect(body).toBeLessThanOrEqual(needs.maxBody);
  for (const timeout of ['proxy_read_timeout', 'proxy_send_timeout']) {
    const value = seconds(directives.get(timeout) ?? '60s');
    expect(value).toBeGreaterThanOrEqual(needs.minTimeout);
    if (needs.maxTimeout) expect(value).toBeLessThanOrEqual(needs.maxTimeout);
  }
  expect(directives.get('proxy_buffering') === 'off').toBe(needs.unbuffered === true);
  expect(directives.get('proxy_request_buffering') === 'off').toBe(needs.streamedUpload === true);
}

function nginxDirectives(conf: string): Map<string, string> {
  const directives = new Map<string, string>();
  for (const line of conf.replace(/#[^\n]*/g, '').split(';')) {
    const [name, ...value] = line.trim().split(/\s+/);
    if (name) directives.set(name, value.join(' '));
  }
  return directives;
}

describe('docker-compose.yml', () => {
  const raw = parse(read('docker-compose.yml'), { merge: true }) as ComposeFile;
  // As `docker compose up` sees it from a shell that sets nothing, with no .env file.
  const compose = interpolateAll(raw, {});
  const services = compose.services;
  /** The app a service runs (its image's APP), for services built from the Dockerfile. */
  const appOf = (service: ComposeService) => service.build?.args?.APP as AppName | undefined;
  const platformServices = Object.entries(services).filter(([, service]) => appOf(service) !== undefined);

  it('is valid against the Compose Specification schema, as written and as interpolated', () => {
    const schema = JSON.parse(read('node_modules/dclint/schemas/compose.schema.json')) as { $schema: string };
    const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
    // The schema names draft-07 by its https address; Ajv knows draft-07 by the http one.
    const draft07 = JSON.parse(read('node_modules/ajv/dist/refs/json-schema-draft-07.json')) as object;
    expect(schema.$schema).toBe('https://json-schema.org/draft-07/schema');
    ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
    const validate = ajv.compile(schema);
    for (const file of [raw, compose]) {
      validate(file);
      expect((validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
    }
    // The check can fail: a misspelt key is refused.
    expect(validate({ services: { edge: { image: 'nginx', restrat: 'always' } } })).toBe(false);
  });

  it('passes the rules of dclint, but those deploy/compose/dclint.yaml turns off with its reasons', () => {
    const settings = parse(read('deploy/compose/dclint.yaml')) as { rules: Record<string, 0 | 1 | 2> };
    const linter = new DCLinter({ rules: settings.rules, quiet: false, debug: false, exclude: [] });
    const [result] = linter.lintFiles([path.join(root, 'docker-compose.yml')], false);
    const messages = result.messages as { line: number; rule: string; message: string }[];
    expect(messages.map((m) => `${m.line}: ${m.rule}: ${m.message}`)).toEqual([]);
    // Only style and the build-and-image pairing are off; every security rule stays on.
    expect(Object.keys(settings.rules).sort()).toEqual([
      'no-build-and-image',
      'service-keys-order',
      'services-alphabetical-order',
      'top-level-properties-order',
    ]);
  });

  it('has PostgreSQL and Redis with health checks and a named volume for the database', () => {
    expect(services.postgres.image).toMatch(/^postgres:1[56]\b/);
    expect(JSON.stringify(services.postgres.healthcheck?.test)).toContain('pg_isready');
    const [volume] = (services.postgres.volumes ?? [])[0].split(':');
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    expect(services.redis.image).toMatch(/^redis:7\b/);
    expect(JSON.stringify(services.redis.healthcheck?.test)).toMatch(/redis-cli.*ping/);
  });

  it('migrates once with platformctl after PostgreSQL is healthy', () => {
    const migrate = services.migrate;
    expect(migrate.build?.args?.APP).toBe('platformctl');
    expect(migrate.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect([migrate.command].flat()).toEqual(['migrate']);
    expect(migrate.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(migrate.restart).toBe('no');
    expect(migrate.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
  });

  /** `bootstrap`'s command line: `--dir` (demo credentials) and `--agent-key-dir` (the agent's key). */
  const bootstrapDirs = () => {
    const [command, ...options] = [services.bootstrap.command].flat() as string[];
    expect(command).toBe('bootstrap');
    const option = (name: string) => options[options.indexOf(name) + 1];
    expect(options.filter((o) => o.startsWith('--')).sort()).toEqual(['--agent-key-dir', '--dir']);
    return { credentials: option('--dir'), agentKey: option('--agent-key-dir') };
  };
  /** The services mounting a named volume, with the path and options of each mount. */
  const mountsOf = (volume: string) =>
    Object.entries(services).flatMap(([name, s]) =>
      (s.volumes ?? []).filter((v) => v.startsWith(`${volume}:`)).map((v) => `${name} ${v.slice(volume.length + 1)}`),
    );

  it("bootstraps once after the migration, the demo credentials and the agent's key in volumes of their own", () => {
    const bootstrap = services.bootstrap;
    expect(bootstrap.build).toEqual(services.migrate.build);
    expect(bootstrap.image).toBe(services.migrate.image);
    expect(bootstrap.restart).toBe('no');
    expect(bootstrap.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    const dirs = bootstrapDirs();
    const volumeAt = (dir: string) =>
      (bootstrap.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === dir)?.[0] ?? '';
    const [credentials, agentKey] = [volumeAt(dirs.credentials), volumeAt(dirs.agentKey)];
    expect(bootstrap.volumes).toHaveLength(2);
    expect(credentials).not.toBe(agentKey);
    for (const volume of [credentials, agentKey]) expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    // The image has both directories, owned by the user the apps run as: a named volume starts like it.
    const dockerfile = read('Dockerfile').replace(/\\\n\s*/g, ' ');
    for (const dir of [dirs.credentials, dirs.agentKey]) {
      expect(dockerfile).toMatch(new RegExp(`mkdir -p [^\\n]*${dir} [^\\n]*&& chown -R node:node /var/lib/federation`));
    }
    // agent-runtime reads the key and nothing else of bootstrap's: the demo admin's credentials stay with bootstrap.
    expect(mountsOf(credentials)).toEqual([`bootstrap ${dirs.credentials}`]);
    expect(mountsOf(agentKey).sort()).toEqual([`agent-runtime ${dirs.agentKey}:ro`, `bootstrap ${dirs.agentKey}`]);
    expect(services['agent-runtime'].depends_on?.bootstrap).toEqual({ condition: 'service_completed_successfully' });
  });

  it("starts agent-runtime's command with the bootstrap's key unless AGENT_GATEWAY_API_KEY is set", () => {
    const runtime = services['agent-runtime'];
    const [shell, flag, script, name, ...rest] = [runtime.entrypoint].flat() as string[];
    expect([shell, flag, name, rest]).toEqual(['/bin/sh', '-c', '--', []]);
    expect([runtime.command].flat()).toEqual(['node', 'dist/apps/agent-runtime/src/main.js']);
    const keyFile = `${bootstrapDirs().agentKey}/${AGENT_GATEWAY_KEY_FILE}`;
    expect(script).toContain(keyFile);
    expect(script.endsWith('exec "$@"')).toBe(true);
    // Run it as Docker does (entrypoint, then the command as its arguments), with the key in a temporary
    // file and a command that prints what the app would get.
    const dir = mkdtempSync(path.join(tmpdir(), 'bootstrap-key-'));
    try {
      writeFileSync(path.join(dir, 'key'), 'fed_from-bootstrap\n');
      const probe = script.replace(keyFile, path.join(dir, 'key'));
      const run = (env: Record<string, string>) =>
        execFileSync('/bin/sh', ['-c', probe, '--', 'printenv', 'AGENT_GATEWAY_API_KEY'], {
          env: { PATH: process.env.PATH, ...env },
          encoding: 'utf8',
        });
      expect(run({})).toBe('fed_from-bootstrap\n');
      expect(run({ AGENT_GATEWAY_API_KEY: '' })).toBe('fed_from-bootstrap\n');
      expect(run({ AGENT_GATEWAY_API_KEY: 'fed_from-env' })).toBe('fed_from-env\n');
      rmSync(path.join(dir, 'key'));
      expect(() =>
        execFileSync('/bin/sh', ['-c', probe, '--', 'true'], { env: { PATH: process.env.PATH }, stdio: 'pipe' }),
      ).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents `config check` commands that check each app in its own service, with its own settings', () => {
    const header = read('docker-compose.yml').split('\nname:')[0];
    const checks = [...header.matchAll(/docker compose run (.*?)config check --app ([\w-]+)/g)].map((m) => ({
      words: m[1].trim().split(/\s+/),
      app: m[2],
    }));
    expect(checks.map((c) => c.app).sort()).toEqual(['agent-runtime', 'chat-service', 'platformctl']);
    for (const { words, app } of checks) {
      // `[options] SERVICE [dist/apps/platformctl/src/main.js]`: the service is the first word that is no option.
      const serviceName = words.find((w, i) => !w.startsWith('-') && words[i - 1] !== '--entrypoint') as string;
      expect([app, appOf(services[serviceName])]).toEqual([app, app]);
      if (app !== 'platformctl') expect(words.at(-1)).toBe('dist/apps/platformctl/src/main.js');
      // agent-runtime's check goes through its entrypoint, which gives it the bootstrap's key.
      expect([app, words.includes('--entrypoint')]).toEqual([app, app === 'chat-service']);
    }
    // With that key, agent-runtime's own settings pass the check; without it (migrate's case) they do not.
    const runtimeEnv = services['agent-runtime'].environment ?? {};
    expect(unmetNeeds(loadConfig('agent-runtime', { ...runtimeEnv, AGENT_GATEWAY_API_KEY: 'fed_kept' }))).toEqual([]);
    expect(unmetNeeds(loadConfig('agent-runtime', runtimeEnv)).map((need) => need.variable)).toEqual([
      'AGENT_GATEWAY_API_KEY',
    ]);
  });

  it("fetches the agent's client-credentials token from auth-service over the compose network", () => {
    const url = new URL(services['agent-runtime'].environment?.AGENT_TOKEN_URL ?? '');
    expect(appOf(services[url.hostname])).toBe('auth-service');
    expect(url.port).toBe(services['auth-service'].environment?.PORT);
    expect(url.pathname).toBe('/federation/auth/v1/token');
    expect(resolve(routes, url.pathname)?.app).toBe('auth-service');
  });

  it("answers the agent's turns with the built-in demo model when no provider is configured", () => {
    const runtime = services['agent-runtime'].environment ?? {};
    const setting = (name: string) =>
      runtime[name] || variables.find((v) => v.name === name)?.defaultFor('agent-runtime');
    const gatewayUrl = new URL(setting('AGENT_GATEWAY_URL') ?? '');
    const gateway = services[gatewayUrl.hostname];
    expect(appOf(gateway)).toBe('llm-gateway');
    expect(gatewayUrl.port).toBe(gateway.environment?.PORT);
    // The routing file mounted into llm-gateway resolves the agent's models.
    const file = gateway.environment?.LLM_GATEWAY_ROUTING_FILE ?? '';
    const mount = (gateway.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === file);
    expect(mount).toBeDefined();
    const routing = parseRoutingFile(read(path.normalize(mount?.[0] ?? '')));
    for (const name of ['AGENT_MODEL', 'AGENT_MODEL_HIGH_PERFORMANCE']) {
      const model = setting(name) ?? '';
      expect([name, model, routing.resolve(model) !== undefined]).toEqual([name, 'demo', true]);
    }
  });

  it.each(serviceNames)('builds %s and starts it after the migration, with a health check on /readyz', (app) => {
    const service = services[app];
    expect(service).toBeDefined();
    expect(service.build?.context).toBe('.');
    expect(service.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(appOf(service)).toBe(app);
    expect(service.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
      ...(app === 'agent-runtime' ? { bootstrap: { condition: 'service_completed_successfully' } } : {}),
    });
    const check = JSON.stringify(service.healthcheck?.test);
    expect(check).toContain('http://127.0.0.1:8080/readyz');
    expect(check).not.toContain('/healthz');
    expect(service.restart).toBe('unless-stopped');
    const env = service.environment ?? {};
    expect(new URL(env.AUTH_JWKS_URL).hostname).toBe('auth-service');
    expect(env.PORT).toBe('8080');
    // Not published: the edge is the one way in.
    expect(service.ports).toBeUndefined();
  });

  it('builds web-service and starts it without PostgreSQL, Redis, the migration or a secret, with a health check on /readyz', () => {
    const service = services[webService];
    expect(service.build?.context).toBe('.');
    expect(service.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(appOf(service)).toBe(webService);
    // It keeps nothing, so it waits for nothing.
    expect(service.depends_on).toBeUndefined();
    expect(service.volumes).toBeUndefined();
    const check = JSON.stringify(service.healthcheck?.test);
    expect(check).toContain('http://127.0.0.1:8080/readyz');
    expect(service.restart).toBe('unless-stopped');
    expect(service.ports).toBeUndefined();
    // Closes both listeners on SIGTERM within seconds.
    expect(seconds(service.stop_grace_period ?? '10s')).toBeGreaterThanOrEqual(5);
  });

  it.each([...httpApps])(
    'runs %s with a read-only root, /tmp in memory, no capabilities and no new privileges',
    (app) => {
      const service = services[app];
      expect([app, service.read_only, service.tmpfs, service.cap_drop, service.security_opt]).toEqual([
        app,
        true,
        ['/tmp'],
        ['ALL'],
        ['no-new-privileges:true'],
      ]);
    },
  );

  it('gives web-service exactly the settings its app reads, the sandbox on its second port and another origin', () => {
    const env = services[webService].environment ?? {};
    expect(Object.keys(env).sort()).toEqual(variablesOf(webService).sort());
    const config = loadConfig(webService, env);
    expect(config.web.sandboxPort).toBe(sandboxRoute.port);
    expect(new URL(config.web.sandboxUrl).origin).not.toBe(new URL(config.http.publicUrl).origin);
  });

  it("gives every reader of CHAT_MODEL_NAME the same one, libs/config's default, so the web app sends the model chat-service accepts", () => {
    const readers = platformServices.filter(([, service]) =>
      readsVariable(appOf(service) as AppName, 'CHAT_MODEL_NAME'),
    );
    expect(readers.map(([name]) => name).sort()).toEqual(
      ['agent-protocols', 'agent-runtime', 'chat-service', webService].sort(),
    );
    const fallback = variables.find((v) => v.name === 'CHAT_MODEL_NAME')?.defaultFor('chat-service');
    for (const [name, service] of readers) {
      expect([name, service.environment?.CHAT_MODEL_NAME]).toEqual([name, fallback]);
    }
    // One setting moves all of them.
    const moved = interpolateAll(raw, { CHAT_MODEL_NAME: 'house-agent' }).services;
    for (const [name] of readers)
      expect([name, moved[name].environment?.CHAT_MODEL_NAME]).toEqual([name, 'house-agent']);
  });

  it.each(platformServices.map(([name]) => name))(
    'gives %s every variable its app requires, and none it does not read',
    (name) => {
      const service = services[name];
      const app = appOf(service) as AppName;
      const env = Object.keys(service.environment ?? {});
      for (const variable of variables.filter((v) => v.requiredIn.includes(app) && v.defaultFor(app) === undefined)) {
        expect([name, variable.name, env.includes(variable.name)]).toEqual([name, variable.name, true]);
      }
      const readBy = (variable: string) =>
        variable === 'NODE_OPTIONS' ||
        (variables.find((v) => v.name === variable)?.apps as readonly string[] | undefined)?.includes(app);
      for (const variable of env) expect([name, variable, readBy(variable)]).toEqual([name, variable, true]);
    },
  );

  it('gives streaming services and agent-runtime their drain time inside the stop grace period', () => {
    for (const app of ['chat-service', 'agent-protocols']) {
      expect(Number(services[app].environment?.SHUTDOWN_TIMEOUT_SECONDS)).toBeGreaterThanOrEqual(30);
      expect(seconds(services[app].stop_grace_period ?? '10s')).toBeGreaterThan(
        Number(services[app].environment?.SHUTDOWN_TIMEOUT_SECONDS),
      );
    }
    const runtime = services['agent-runtime'];
    expect(runtime.environment?.AGENT_DRAIN_SECONDS).toBe('300');
    expect(seconds(runtime.stop_grace_period ?? '10s')).toBeGreaterThan(
      Number(runtime.environment?.AGENT_DRAIN_SECONDS) + Number(runtime.environment?.SHUTDOWN_TIMEOUT_SECONDS),
    );
  });

  it('has no services beyond the platform, its one-shots, its dependencies and the edge', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['bootstrap', 'edge', 'migrate', 'postgres', 'redis', ...httpApps].sort(),
    );
  });

  it("publishes the edge's app port, the one in PUBLIC_URL and AUTH_URL, and its sandbox port, the one in WEB_SANDBOX_URL, on the loopback interface unless EDGE_BIND says otherwise", () => {
    const edge = services.edge;
    expect(edge.image).toMatch(/^nginx:[\d.]+-alpine$/);
    const ports = (edge.ports ?? []) as ComposePort[];
    expect(ports.map((p) => [p.target, p.host_ip, p.protocol])).toEqual([
      [8080, '127.0.0.1', 'tcp'],
      [sandboxRoute.port, '127.0.0.1', 'tcp'],
    ]);
    const [published, sandboxPublished] = ports.map((p) => String(p.published));
    expect([published, sandboxPublished]).toEqual(['8080', '8081']);
    for (const app of httpApps) {
      const env = services[app].environment ?? {};
      expect(env.PUBLIC_URL).toBe(`http://localhost:${published}`);
      expect(env.AUTH_URL).toBe(`http://localhost:${published}`);
    }
    // Another port is another origin: the sandbox apart from the app, on the same host.
    expect(services[webService].environment?.WEB_SANDBOX_URL).toBe(`http://localhost:${sandboxPublished}`);
    const bound = (
      interpolateAll(raw, { EDGE_BIND: '0.0.0.0', EDGE_PORT: '9090', EDGE_SANDBOX_PORT: '9091' }).services.edge
        .ports as ComposePort[]
    ).map((p) => [p.host_ip, p.published]);
    expect(bound).toEqual([
      ['0.0.0.0', '9090'],
      ['0.0.0.0', '9091'],
    ]);
    // The edge starts after every app it routes to (it resolves them at request time either way).
    for (const app of new Set(routes.map((r) => r.app))) {
      expect([app, edge.depends_on?.[app]?.condition]).toEqual([app, 'service_started']);
    }
    for (const mount of edge.volumes ?? []) expect(existsSync(path.join(root, mount.split(':')[0]))).toBe(true);
    expect(edge.volumes).toContain('./deploy/compose/nginx/default.conf:/etc/nginx/conf.d/default.conf:ro');
  });

  it('health-checks the edge on a server of its own on the loopback interface, answered by nginx with a tool its image has', () => {
    const edge = services.edge;
    const test = edge.healthcheck?.test as string[];
    expect(test.slice(0, -1)).toEqual(['CMD', 'wget', '-q', '-O', '/dev/null']);
    const url = new URL(test.at(-1) as string);
    expect([url.hostname, url.pathname]).toEqual(['127.0.0.1', '/edge-healthz']);
    const servers = nginxServers(read('deploy/compose/nginx/default.conf'));
    expect(servers.map((server) => server.listen)).toEqual([
      [`127.0.0.1:${url.port}`],
      ['8080'],
      [String(sandboxRoute.port)],
    ]);
    // The health server answers the check itself, and nothing else.
    const health = nginxLocations(servers[0].body);
    expect(health.map((l) => `${l.exact ? '= ' : ''}${l.path}`)).toEqual(['= /edge-healthz', '/']);
    const block = /location = \/edge-healthz \{([^}]*)\}/.exec(servers[0].body)?.[1] ?? '';
    expect(block).toMatch(/return 200 /);
    expect(servers[0].body).not.toMatch(/proxy_pass|set \$app/);
    // The published port is the other server's, which has no such location: /edge-healthz falls to its catch-all.
    const published = (edge.ports ?? []).map((p) => (p as ComposePort).target);
    expect(published).toEqual([8080, sandboxRoute.port]);
    expect(published).not.toContain(Number(url.port));
    expect(nginxResolve(nginxLocations(servers[1].body), '/edge-healthz')?.path).toBe('/');
    // Whatever waits for the edge waits for it to be healthy.
    for (const [name, service] of Object.entries(services)) {
      if (service.depends_on?.edge)
        expect([name, service.depends_on.edge.condition]).toEqual([name, 'service_healthy']);
    }
  });

  it('interpolates as Compose does', () => {
    expect(interpolate('a$$b ${X} $X ${Y:-d} ${Y-d} ${E:-d} ${E-d} ${X:+alt} ${Y+alt}', { X: 'x', E: '' })).toBe(
      'a$b x x d d d  alt ',
    );
    expect(() => interpolate('${REQUIRED:?set it}', {})).toThrow('REQUIRED is required: set it');
  });

  describe('edge proxy (deploy/compose/nginx)', () => {
    // The public server: the one on the published port.
    const publicServer = nginxServers(read('deploy/compose/nginx/default.conf')).find((s) => s.listen.includes('8080'));
    const locations = nginxLocations(publicServer?.body ?? '');

    it('has exactly the locations of the route table', () => {
      const expected = routes.flatMap((r) =>
        r.pathType === 'Exact'
          ? [`= ${r.path} ${r.app} ${r.profile}`]
          : [`= ${r.path} ${r.app} ${r.profile}`, `${r.path}/ ${r.app} ${r.profile}`],
      );
      const actual = locations.filter((l) => l.app).map((l) => `${l.exact ? '= ' : ''}${l.path} ${l.app} ${l.profile}`);
      expect(actual.sort()).toEqual(expected.sort());
      // Everything else falls to a catch-all that proxies nowhere.
      expect(locations.filter((l) => !l.app).map((l) => l.path)).toEqual(['/']);
      for (const app of new Set(locations.map((l) => l.app))) {
        if (app) expect(services[app]).toBeDefined();
      }
    });

    it.each(specPaths)('routes $path to $app', ({ path: requestPath, app }) => {
      expect(nginxResolve(locations, requestPath)?.app).toBe(app);
    });

    it.each(unroutedPaths)('does not route %s', (requestPath) => {
      expect(nginxResolve(locations, requestPath)?.app).toBeUndefined();
    });

    it.each(Object.keys(profileNeeds) as EdgeProfile[])('profile %s has the edge settings', (profile) => {
      const directives = nginxDirectives(read(`deploy/compose/nginx/profiles/${profile}.conf`));
      expect(directives.get('proxy_pass')).toBe('http://$app:8080');
      expectNginxProfile(directives, profile);
    });

    describe("the sandbox's port", () => {
      const sandboxServer = nginxServers(read('deploy/compose/nginx/default.conf')).find((s) =>
        s.listen.includes(String(sandboxRoute.port)),
      );
      const sandboxLocations = nginxLocations(sandboxServer?.body ?? '');

      it("sends every path to web-service's sandbox listener, with the static profile's settings", () => {
        expect(sandboxLocations.map((l) => [l.exact, l.path, l.app, l.profile])).toEqual([
          [false, '/', webService, 'sandbox'],
        ]);
        // The platform is not reachable there: its paths also go to the sandbox, which answers 404.
        for (const requestPath of ['/', '/proxy', ...specPaths.map((p) => p.path)]) {
          expect([requestPath, nginxResolve(sandboxLocations, requestPath)?.app]).toEqual([requestPath, webService]);
        }
        const directives = nginxDirectives(read('deploy/compose/nginx/profiles/sandbox.conf'));
        // The port web-service's sandbox listens on there (WEB_SANDBOX_PORT).
        const sandboxPort = loadConfig(webService, services[webService].environment ?? {}).web.sandboxPort;
        expect(sandboxPort).toBe(sandboxRoute.port);
        expect(directives.get('proxy_pass')).toBe(`http://$app:${sandboxPort}`);
        expectNginxProfile(directives, sandboxRoute.profile);
      });
    });
  });
});

// =============================================================================================
describe('Dockerfile', () => {
  // Instructions with continuation lines joined and comments dropped.
  const instructions = read('Dockerfile')
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
  const stages: { name: string; from: string; body: typeof instructions }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from, , name] = instruction.args.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), from, body: [] });
    } else {
      stages.at(-1)?.body.push(instruction);
    }
  }
  const final = stages[stages.length - 1];
  const globalArgs = instructions.slice(
    0,
    instructions.findIndex((i) => i.keyword === 'FROM'),
  );

  it('is multi-stage on the Node major of package.json, with the runtime built from deps and build stages', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const manifest = JSON.parse(read('package.json')) as {
      engines: { node: string };
      devDependencies: { node: string };
    };
    const major = /^\D*(\d+)\./.exec(manifest.devDependencies.node)?.[1];
    expect(major).toBe('24');
    expect(manifest.engines.node).toMatch(new RegExp(`^\\^${major}\\.`));
    const nodeImage = /NODE_IMAGE=(\S+)/.exec(globalArgs.map((a) => a.args).join(' '))?.[1];
    expect(nodeImage ?? stages[0].from).toMatch(new RegExp(`^node:${major}([.-]|$)`));
    const copies = final.body.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies.some((c) => /--from=deps\b.*node_modules/.test(c))).toBe(true);
    expect(copies.some((c) => /--from=build\b.*dist/.test(c))).toBe(true);
    expect(final.body).toContainEqual({ keyword: 'ENV', args: expect.stringMatching(/NODE_ENV=production/) });
  });

  it('has nothing that the Docker language server validator reports (no Docker engine here to build it)', () => {
    const problems = validateDockerfile(read('Dockerfile')).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
  });

  it('installs production dependencies only for the runtime, and all of them for the build', () => {
    const runs = (stage: string) => stages.find((s) => s.name === stage)?.body.filter((i) => i.keyword === 'RUN') ?? [];
    expect(runs('deps').some((r) => /npm ci\b.*--omit=dev/.test(r.args))).toBe(true);
    expect(runs('build').some((r) => /npm ci\b/.test(r.args) && !/--omit=dev/.test(r.args))).toBe(true);
    expect(runs('build').some((r) => /tools\/build\.mjs|npm run build/.test(r.args))).toBe(true);
  });

  it('copies package*.json, runs npm ci, and only then copies the sources (layer cache)', () => {
    for (const stage of stages.filter((s) => s.body.some((i) => /npm ci\b/.test(i.args)))) {
      const index = (predicate: (i: { keyword: string; args: string }) => boolean) => stage.body.findIndex(predicate);
      const manifests = index((i) => i.keyword === 'COPY' && /package(-lock)?\.json|package\*\.json/.test(i.args));
      const install = index((i) => i.keyword === 'RUN' && /npm ci\b/.test(i.args));
      const sources = index((i) => i.keyword === 'COPY' && /\b(apps|libs)\b/.test(i.args) && !/--from/.test(i.args));
      expect(manifests).toBeGreaterThanOrEqual(0);
      expect(install).toBeGreaterThan(manifests);
      if (sources >= 0) expect(sources).toBeGreaterThan(install);
    }
  });

  it('selects the app with ARG APP, runs as a non-root user and starts dist/apps/${APP}/src/main.js', () => {
    expect(final.body.some((i) => i.keyword === 'ARG' && /^APP(=|$)/.test(i.args))).toBe(true);
    const user = final.body.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    const start = final.body.filter((i) => i.keyword === 'ENTRYPOINT' || i.keyword === 'CMD').map((i) => i.args);
    expect(start.join(' ')).toContain('dist/apps/${APP}/src/main.js');
    expect(final.body).toContainEqual({ keyword: 'ENV', args: expect.stringMatching(/\bAPP=\$\{?APP\}?/) });
  });

  it('builds from sources that exist and that .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const entry of ['**/node_modules', 'dist', '.data', '.git', 'bench/results', 'coverage', '.nx']) {
      expect(ignored).toContain(entry);
    }
    const sources = instructions
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect([source, existsSync(path.join(root, source))]).toEqual([source, true]);
      expect(ignored).not.toContain(source);
    }
  });

  it('has an entry point for every app the compose file and the manifests start', () => {
    const apps = new Set(
      Object.values(parse(read('docker-compose.yml'), { merge: true }).services as Record<string, ComposeService>)
        .map((s) => s.build?.args?.APP)
        .filter((app): app is string => app !== undefined),
    );
    expect(apps).toEqual(new Set([...httpApps, 'platformctl']));
    for (const app of apps) expect(existsSync(path.join(root, 'apps', app, 'src', 'main.ts'))).toBe(true);
  });
});
