import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { validate as validateDockerfile } from 'dockerfile-utils';
import { parse, parseAllDocuments } from 'yaml';
import { serviceNames, variables } from '@fed/config';
import { parseRoutingFile } from '@fed/gateway';
import {
  type EdgeProfile,
  type PathType,
  type Route,
  httpApps,
  matches,
  publicApps,
  resolve,
  routes,
  specPaths,
  unroutedPaths,
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
  { minBody: number; maxBody?: number; unbuffered?: boolean; streamedUpload?: boolean; minTimeout: number }
> = {
  auth: { minBody: 1 * MB, maxBody: 1 * MB, minTimeout: 60 },
  api: { minBody: 2 * MB, maxBody: 32 * MB, minTimeout: 60 },
  stream: { minBody: 2 * MB, unbuffered: true, minTimeout: 3600 },
  upload: { minBody: 512 * MB, streamedUpload: true, minTimeout: 600 },
  llm: { minBody: 32 * MB, unbuffered: true, minTimeout: 3600 },
};

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
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
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
  metadata: { labels?: Labels };
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
interface Hpa extends K8sObject {
  spec: {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: { type: string; resource?: { name: string; target: { type: string; averageUtilization?: number } } }[];
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

/** Effective value of a variable in a container: its own env first, then the ConfigMap. */
function effectiveEnv(container: Container, config: ConfigMap, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value ?? config.data?.[name];
}

// Platform variables, and the Node runtime's own (V8 tuning of a deployable).
const variableNames = new Set<string>([...variables.map((v) => v.name), 'NODE_OPTIONS']);
const sensitiveNames = variables.filter((v) => v.sensitive).map((v) => v.name);

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
    expect([...httpApps].sort()).toEqual([...serviceNames].sort());
    expect(publicApps).not.toContain('agent-runtime');
    for (const app of publicApps) expect(specPaths.some((s) => s.app === app)).toBe(true);
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

    it('reads the shared ConfigMap and the platform-secrets Secret', () => {
      const container = mainContainer(k8s.get<Deployment>('Deployment', app));
      expect(container.envFrom).toContainEqual({ configMapRef: { name: config.metadata.name } });
      expect(container.envFrom).toContainEqual({ secretRef: { name: 'platform-secrets' } });
      for (const variable of container.env ?? []) expect(variableNames).toContain(variable.name);
    });

    it('gets a grace period longer than its preStop pause plus its drain time', () => {
      const deployment = k8s.get<Deployment>('Deployment', app);
      const container = mainContainer(deployment);
      const drain = Number(effectiveEnv(container, config, 'SHUTDOWN_TIMEOUT_SECONDS') ?? '10');
      const preStop = container.lifecycle?.preStop?.exec?.command;
      const pause = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(drain + pause);
      if (app === 'chat-service' || app === 'agent-protocols') {
        // SSE streams: more time than the default to end cleanly.
        expect(drain).toBeGreaterThanOrEqual(30);
        expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);
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

  it('has no other Deployments than the six services', () => {
    expect(
      k8s
        .all<Deployment>('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([...httpApps].sort());
  });

  it('autoscales exactly chat-service, agent-runtime and llm-gateway on CPU', () => {
    const hpas = k8s.all<Hpa>('HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([
      'agent-runtime',
      'chat-service',
      'llm-gateway',
    ]);
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
    expect(secretKeys.sort()).toEqual([...sensitiveNames].sort());
    for (const value of Object.values(template.stringData ?? {})) expect(value).toContain('CHANGE_ME');
    for (const variable of variables.filter((v) => v.requiredIn.length > 0)) {
      expect([...keys, ...secretKeys]).toContain(variable.name);
    }
  });

  it('fetches signing keys in-cluster from auth-service and serves the public URLs on the Ingress host', () => {
    const jwks = new URL(config.data?.AUTH_JWKS_URL ?? '');
    const [host, port] = [jwks.hostname, Number(jwks.port || 80)];
    expect(host).toBe('auth-service');
    expect(k8s.get<Service>('Service', host).spec.ports.map((p) => p.port)).toContain(port);
    expect(resolve(routes, jwks.pathname)?.app).toBe('auth-service');

    const hosts = new Set(k8s.all<Ingress>('Ingress').flatMap((i) => i.spec.rules.map((r) => r.host)));
    expect(hosts.size).toBe(1);
    const [ingressHost] = hosts;
    expect(new URL(config.data?.PUBLIC_URL ?? '').host).toBe(ingressHost);
    expect(new URL(config.data?.AUTH_URL ?? '').host).toBe(ingressHost);
    for (const ingress of k8s.all<Ingress>('Ingress')) {
      expect(ingress.spec.tls?.flatMap((t) => t.hosts ?? [])).toContain(ingressHost);
    }
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

  describe('Ingress routing', () => {
    interface Rule {
      path: string;
      pathType: PathType;
      ingress: Ingress;
      backend: IngressPath['backend']['service'];
    }
    let rules: Rule[];
    beforeAll(() => {
      rules = k8s.all<Ingress>('Ingress').flatMap((ingress) =>
        ingress.spec.rules.flatMap((rule) =>
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
      {
        const profile = route.profile;
        const rule = rules.find((r) => r.path === route.path && r.pathType === route.pathType);
        const annotations = rule?.ingress.metadata.annotations ?? {};
        const annotation = (name: string) => annotations[`nginx.ingress.kubernetes.io/${name}`];
        const needs = profileNeeds[profile];
        expect(rule?.ingress.metadata.labels?.['federation-platform/edge-profile']).toBe(profile);
        const body = bytes(annotation('proxy-body-size') ?? '1m');
        expect(body).toBeGreaterThanOrEqual(needs.minBody);
        if (needs.maxBody) expect(body).toBeLessThanOrEqual(needs.maxBody);
        expect(Number(annotation('proxy-read-timeout') ?? 60)).toBeGreaterThanOrEqual(needs.minTimeout);
        expect(Number(annotation('proxy-send-timeout') ?? 60)).toBeGreaterThanOrEqual(needs.minTimeout);
        expect(annotation('proxy-buffering') === 'off').toBe(needs.unbuffered === true);
        expect(annotation('proxy-request-buffering') === 'off').toBe(needs.streamedUpload === true);
      }
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
    expect(Object.keys(secret?.data ?? {}).sort()).toEqual([...sensitiveNames].sort());
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
        }
      }
    }
  });

  it('serves http://localhost:8080 without a host on the Ingresses', () => {
    const config = local.platformConfig();
    expect(config.data?.PUBLIC_URL).toBe('http://localhost:8080');
    expect(config.data?.AUTH_URL).toBe('http://localhost:8080');
    for (const ingress of local.all<Ingress>('Ingress')) {
      for (const rule of ingress.spec.rules) expect(rule.host).toBeUndefined();
    }
  });
});

// =============================================================================================
interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  restart?: string;
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** A compose value with `${NAME:-default}` replaced by its default (what an empty shell gives). */
const withDefaults = (value: string) => value.replace(/\$\{\w+(?::?-([^}]*))?\}/g, (_match, fallback = '') => fallback);

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

/** nginx's choice without regex locations: an exact match, else the longest prefix. */
function nginxResolve(locations: Location[], requestPath: string): Location | undefined {
  const exact = locations.find((l) => l.exact && l.path === requestPath);
  if (exact) return exact;
  return locations
    .filter((l) => !l.exact && requestPath.startsWith(l.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
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
  const compose = parse(read('docker-compose.yml'), { merge: true }) as ComposeFile;
  const services = compose.services;

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

  it.each(httpApps)('builds and starts %s after the migration', (app) => {
    const service = services[app];
    expect(service).toBeDefined();
    expect(service.build?.context).toBe('.');
    expect(service.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(service.build?.args?.APP).toBe(app);
    expect(service.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(JSON.stringify(service.healthcheck?.test)).toContain('/healthz');
    expect(service.restart).toBe('unless-stopped');
    const env = service.environment ?? {};
    for (const key of Object.keys(env)) expect(variableNames).toContain(key);
    for (const variable of variables.filter((v) => v.requiredIn.includes(app))) {
      expect(Object.keys(env)).toContain(variable.name);
    }
    expect(new URL(env.AUTH_JWKS_URL).hostname).toBe('auth-service');
    expect(withDefaults(env.PORT)).toBe('8080');
    // Not published: the edge is the one way in.
    expect(service.ports).toBeUndefined();
  });

  it('gives streaming services the longer drain and matching stop grace', () => {
    for (const app of ['chat-service', 'agent-protocols']) {
      expect(Number(services[app].environment?.SHUTDOWN_TIMEOUT_SECONDS)).toBeGreaterThanOrEqual(30);
      expect(seconds(services[app].stop_grace_period ?? '10s')).toBeGreaterThan(
        Number(services[app].environment?.SHUTDOWN_TIMEOUT_SECONDS),
      );
    }
  });

  it('has no services beyond the platform, its dependencies and the edge', () => {
    expect(Object.keys(services).sort()).toEqual(['edge', 'migrate', 'postgres', 'redis', ...httpApps].sort());
  });

  it('publishes one edge port, the one in PUBLIC_URL and AUTH_URL', () => {
    const edge = services.edge;
    expect(edge.image).toMatch(/^nginx:/);
    expect(edge.ports).toHaveLength(1);
    const [published, target] = withDefaults(edge.ports?.[0] ?? '').split(':');
    expect(target).toBe('8080');
    for (const app of httpApps) {
      const env = services[app].environment ?? {};
      expect(withDefaults(env.PUBLIC_URL)).toBe(`http://localhost:${published}`);
      expect(withDefaults(env.AUTH_URL)).toBe(`http://localhost:${published}`);
    }
    for (const mount of edge.volumes ?? []) expect(existsSync(path.join(root, mount.split(':')[0]))).toBe(true);
    expect(edge.volumes).toContain('./deploy/compose/nginx/default.conf:/etc/nginx/conf.d/default.conf:ro');
  });

  describe('edge proxy (deploy/compose/nginx)', () => {
    const locations = nginxLocations(read('deploy/compose/nginx/default.conf'));

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
      const needs = profileNeeds[profile];
      expect(directives.get('proxy_pass')).toBe('http://$app:8080');
      const body = bytes(directives.get('client_max_body_size') ?? '1m');
      expect(body).toBeGreaterThanOrEqual(needs.minBody);
      if (needs.maxBody) expect(body).toBeLessThanOrEqual(needs.maxBody);
      expect(seconds(directives.get('proxy_read_timeout') ?? '60s')).toBeGreaterThanOrEqual(needs.minTimeout);
      expect(seconds(directives.get('proxy_send_timeout') ?? '60s')).toBeGreaterThanOrEqual(needs.minTimeout);
      expect(directives.get('proxy_buffering') === 'off').toBe(needs.unbuffered === true);
      expect(directives.get('proxy_request_buffering') === 'off').toBe(needs.streamedUpload === true);
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
