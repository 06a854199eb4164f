import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';

/**
 * The deployment files, checked by the tools that read them, since no container engine or cluster runs here:
 * the Kubernetes manifests against the API's schemas (kubernetes-models), the Compose files by compose-go (the
 * loader of Docker Compose: schema, interpolation, references between services), HAProxy's configuration by
 * `haproxy -c`.
 */
jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const MANIFESTS = path.join(ROOT, 'deploy/kubernetes/kgrag.yaml');
const CHECKER_SOURCE = path.join(ROOT, 'scripts/deploy/compose-check');
const CHECKER = path.join(ROOT, 'build/compose-check/compose-check');

const KINDS = {
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
} as const;

type Manifest = { apiVersion: string; kind: string; metadata: { name: string } } & Record<string, unknown>;

describe('Kubernetes manifests', () => {
  const docs = parseAllDocuments(fs.readFileSync(MANIFESTS, 'utf8')).map((d) => d.toJS() as Manifest);
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);

  it('are each valid against the schema of their kind', () => {
    expect(docs.map((d) => d.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret', 'Service'].sort(),
    );
    for (const doc of docs) {
      const Model = KINDS[`${doc.apiVersion}/${doc.kind}` as keyof typeof KINDS];
      expect(Model).toBeDefined();
      expect(() => new Model(doc as never).validate()).not.toThrow();
    }
  });

  it('refuse what the schema refuses (the check can fail)', () => {
    const deployment = structuredClone(byKind('Deployment')[0]) as { spec: { replicas: unknown } } & Manifest;
    deployment.spec.replicas = 'three';
    expect(() => new Deployment(deployment as never).validate()).toThrow(/replicas/);
  });

  it('probe /live for start and liveness and /ready for readiness, and hold together by name and label', () => {
    const deployment = new Deployment(byKind('Deployment')[0] as never);
    const pod = deployment.spec!.template.spec!;
    const [api] = pod.containers;
    expect(api.startupProbe?.httpGet?.path).toBe('/live');
    expect(api.livenessProbe?.httpGet?.path).toBe('/live');
    expect(api.readinessProbe?.httpGet?.path).toBe('/ready');
    const labels = deployment.spec!.template.metadata!.labels!;
    expect(deployment.spec!.selector.matchLabels).toEqual(labels);
    expect((byKind('Service')[0] as unknown as Service).spec!.selector).toEqual(labels);
    expect((byKind('PodDisruptionBudget')[0] as unknown as PodDisruptionBudget).spec!.selector!.matchLabels).toEqual(labels);
    const hpa = byKind('HorizontalPodAutoscaler')[0] as unknown as HorizontalPodAutoscaler;
    expect(hpa.spec!.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata!.name });
    expect(hpa.spec!.metrics?.[0].resource?.name).toBe('cpu');
    const secret = byKind('Secret')[0] as unknown as Secret;
    expect(Object.keys(secret.stringData ?? {})).toEqual(expect.arrayContaining(['SERVICE_JWT_SECRET', 'SERVICE_MASTER_API_KEY']));
    expect(api.envFrom?.map((e) => e.secretRef?.name ?? e.configMapRef?.name)).toEqual([
      byKind('ConfigMap')[0].metadata.name,
      secret.metadata!.name,
    ]);
  });
});

/** Builds the compose-go checker once (the Go toolchain fetches compose-go through the module proxy). */
function checker(): string {
  const sources = ['main.go', 'go.mod', 'go.sum'].map((f) => fs.statSync(path.join(CHECKER_SOURCE, f)).mtimeMs);
  if (!fs.existsSync(CHECKER) || fs.statSync(CHECKER).mtimeMs < Math.max(...sources)) {
    execFileSync('go', ['build', '-o', CHECKER, '.'], { cwd: CHECKER_SOURCE, stdio: ['ignore', 'ignore', 'inherit'], timeout: 280_000 });
  }
  return CHECKER;
}

function loadCompose(file: string, env: Record<string, string>) {
  const { PATH, HOME, GOPATH, GOMODCACHE } = process.env;
  const run = spawnSync(checker(), ['-f', path.join(ROOT, file)], {
    env: { PATH, HOME, GOPATH, GOMODCACHE, ...env } as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  return { status: run.status, error: run.stderr.trim(), project: run.status === 0 ? JSON.parse(run.stdout) : null };
}

describe('Compose files (compose-go)', () => {
  const secrets = { SERVICE_JWT_SECRET: 'x'.repeat(32), SERVICE_MASTER_API_KEY: 'y'.repeat(16) };

  it('the scale-out file: three API replicas behind HAProxy, a three-node Qdrant cluster, Neo4j and Redis', () => {
    const { project, error } = loadCompose('deploy/scale/compose.yml', secrets);
    expect(error).toBe('');
    expect(Object.keys(project.services).sort()).toEqual(['app', 'balancer', 'neo4j', 'qdrant-1', 'qdrant-2', 'qdrant-3', 'redis']);
    const app = project.services.app;
    expect(app.deploy.replicas).toBe(3);
    expect(app.environment.QDRANT_URL.split(',')).toHaveLength(3);
    expect(app.environment).toMatchObject({ SERVICE_JWT_SECRET: secrets.SERVICE_JWT_SECRET, QDRANT_REPLICATION_FACTOR: '3' });
    for (const node of ['qdrant-1', 'qdrant-2', 'qdrant-3']) {
      expect(project.services[node].environment.QDRANT__CLUSTER__ENABLED).toBe('true');
    }
    expect(project.services['qdrant-2'].command).toEqual(expect.arrayContaining(['--bootstrap', 'http://qdrant-1:6335']));
  });

  it('refuses to start the instances without a shared JWT secret', () => {
    const { status, error } = loadCompose('deploy/scale/compose.yml', { SERVICE_MASTER_API_KEY: secrets.SERVICE_MASTER_API_KEY });
    expect(status).toBe(1);
    expect(error).toContain('SERVICE_JWT_SECRET');
  });

  it('the single-instance file loads too', () => {
    const { project, error } = loadCompose('docker-compose.yml', {});
    expect(error).toBe('');
    expect(project.services.app.environment.QDRANT_URL).toBe('http://qdrant:6333');
  });
});

describe('HAProxy configuration', () => {
  it('is valid for haproxy -c, and routes to instances whose /ready answers', () => {
    const file = path.join(ROOT, 'deploy/scale/haproxy.cfg');
    const run = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    expect(run.stderr).not.toMatch(/WARNING|ALERT/);
    expect(run.status).toBe(0);
    const config = fs.readFileSync(file, 'utf8');
    expect(config).toMatch(/option httpchk GET \/ready/);
    expect(config).toMatch(/balance roundrobin/);
  });
});
