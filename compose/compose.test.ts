import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { ALL_ROLES, EDGE_ROLES, ACTOR_ROLES } from '../cli/roles.ts';
import { PORT_VARIABLES, SERVICES, URL_VARIABLES } from '../config/index.ts';

/**
 * docker-compose.yml, checked by reading it: no Docker engine runs here, so nothing is started.
 * (The same cluster as processes is what the integration tests run, via local-cluster.ts.)
 */

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string> | string[];
  env_file?: string[];
  ports?: string[];
  volumes?: string[];
}

const here = import.meta.dirname;
const compose = parse(readFileSync(join(here, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = Object.entries(compose.services);
const isSuite = ([, s]: [string, Service]) => s.image?.startsWith('agent-authority-suite') === true;
const isNats = ([, s]: [string, Service]) => s.image?.startsWith('nats:') === true;
const suite = services.filter(isSuite);
const nats = services.filter(isNats);

function envOf(s: Service): Record<string, string> {
  const env = s.environment ?? {};
  return Array.isArray(env) ? Object.fromEntries(env.map((kv) => kv.split(/=(.*)/s).slice(0, 2))) : env;
}

/** Keys an env file sets; the real secrets.env is not in the repository, so its example stands in. */
function envFileKeys(s: Service): Set<string> {
  const keys = new Set<string>();
  for (const file of s.env_file ?? []) {
    const text = readFileSync(join(here, file === 'secrets.env' ? 'secrets.env.example' : file), 'utf8');
    for (const line of text.split('\n')) if (/^[A-Z_][A-Z0-9_]*=/.test(line)) keys.add(line.split('=')[0] as string);
  }
  return keys;
}

function rolesOf(name: string, s: Service): string[] {
  const [node, entry, verb, ...roles] = s.command ?? [];
  expect({ name, command: [node, entry, verb] }).toEqual({ name, command: ['node', 'cli/suite.ts', 'run'] });
  return roles;
}

/** Value of `--flag value` in a nats-server command line. */
function flag(s: Service, name: string): string | undefined {
  const args = s.command ?? [];
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

describe('compose/docker-compose.yml', () => {
  test('every suite service runs `node cli/suite.ts run` with roles the suite knows', () => {
    expect(suite.length).toBeGreaterThan(0);
    for (const [name, s] of suite) {
      const roles = rolesOf(name, s);
      expect({ name, count: roles.length > 0 }).toEqual({ name, count: true });
      for (const role of roles) expect({ name, role, known: ALL_ROLES.includes(role as never) }).toEqual({ name, role, known: true });
    }
  });

  test('every edge and actor role runs somewhere, the token edge twice and the chain writer once', () => {
    const all = suite.flatMap(([name, s]) => rolesOf(name, s));
    for (const role of [...Object.keys(EDGE_ROLES), ...ACTOR_ROLES]) expect({ role, covered: all.includes(role) }).toEqual({ role, covered: true });
    expect(all.filter((r) => r === 'edge:token')).toHaveLength(2);
    expect(all.filter((r) => r === 'actor:chain-writer')).toHaveLength(1);
  });

  test('the three NATS nodes form one JetStream cluster whose routes reach every other node', () => {
    expect(nats).toHaveLength(3);
    const clusterPort = new Map(nats.map(([name, s]) => [name, new URL(flag(s, '--cluster') ?? '').port]));
    expect(new Set(nats.map(([, s]) => flag(s, '--cluster_name'))).size).toBe(1);
    expect(new Set(nats.map(([, s]) => flag(s, '--name'))).size).toBe(3);
    for (const [name, s] of nats) {
      expect(s.command).toContain('--jetstream');
      expect(s.volumes?.some((v) => v.endsWith(`:${flag(s, '--store_dir')}`))).toBe(true);
      const routes = (flag(s, '--routes') ?? '').split(',').map((r) => new URL(r));
      const others = nats
        .map(([n]) => n)
        .filter((n) => n !== name)
        .sort();
      expect({ name, routes: routes.map((r) => r.hostname).sort() }).toEqual({ name, routes: others });
      for (const r of routes) expect({ name, route: r.href, port: r.port }).toEqual({ name, route: r.href, port: clusterPort.get(r.hostname) });
    }
  });

  test('every suite service gets a NATS URL of a cluster node and the database URL, secrets only from env_file', () => {
    const natsClientPorts = new Map(nats.map(([name, s]) => [name, flag(s, '--port')]));
    for (const [name, s] of suite) {
      const env = envOf(s);
      const urls = (env.SUITE_NATS_URL ?? 'missing://').split(',').map((u) => new URL(u));
      expect({ name, nodes: urls.map((u) => u.hostname).sort() }).toEqual({ name, nodes: [...natsClientPorts.keys()].sort() });
      for (const url of urls) {
        expect({ name, nats: `${url.protocol}${url.port}` }).toEqual({ name, nats: `nats:${natsClientPorts.get(url.hostname)}` });
      }
      const fromFile = envFileKeys(s);
      for (const secret of ['SUITE_DATABASE_URL', 'SUITE_HMAC_SECRET', 'SUITE_ADMIN_KEY']) {
        expect({ name, secret, inFile: fromFile.has(secret), inline: secret in env }).toEqual({ name, secret, inFile: true, inline: false });
      }
    }
    const example = readFileSync(join(here, 'secrets.env.example'), 'utf8');
    const db = new URL(/^SUITE_DATABASE_URL=(.*)$/m.exec(example)?.[1] ?? '');
    expect(db.hostname in compose.services).toBe(true);
    expect(db.pathname).toBe(`/${envOf(compose.services[db.hostname] as Service).POSTGRES_DB}`);
  });

  test('published ports do not clash, bind to loopback, and reach the port each edge listens on', () => {
    const published = services.flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => {
        const [ip, host, container] = p.split(':');
        return { name, ip, host, container };
      }),
    );
    expect(new Set(published.map((p) => p.host)).size).toBe(published.length);
    for (const p of published) expect(p.ip).toBe('127.0.0.1');
    for (const [name, s] of suite) {
      const env = envOf(s);
      const edges = rolesOf(name, s).filter((r): r is keyof typeof EDGE_ROLES => r in EDGE_ROLES);
      const listens = edges.map((r) => env[PORT_VARIABLES[EDGE_ROLES[r]]]);
      expect({ name, published: published.filter((p) => p.name === name).map((p) => p.container) }).toEqual({ name, published: listens });
    }
  });

  test('the dashboard reaches every other listener at a service that runs its edge, on the port it listens on', () => {
    const [, dashboard] = suite.find(([, s]) => rolesOf('dashboard', s).includes('edge:dashboard')) as [string, Service];
    const env = envOf(dashboard);
    for (const listener of SERVICES.filter((l) => l !== 'dashboard')) {
      const url = new URL(env[URL_VARIABLES[listener]] ?? 'missing://');
      const target = compose.services[url.hostname];
      expect({ listener, runsEdge: target ? rolesOf(url.hostname, target).includes(`edge:${listener}`) : false }).toEqual({ listener, runsEdge: true });
      expect({ listener, port: url.port }).toEqual({ listener, port: envOf(target as Service)[PORT_VARIABLES[listener]] });
    }
  });

  test('the image is built from node:24-slim with npm ci', () => {
    const dockerfile = readFileSync(join(here, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:24-slim$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    for (const [, s] of suite) expect(s.build).toEqual({ context: '..', dockerfile: 'compose/Dockerfile' });
  });
});

describe('metrics, alerts and dashboards of the compose cluster', () => {
  const prometheus = compose.services.prometheus as Service;
  const grafana = compose.services.grafana as Service;
  const mounted = (s: Service) =>
    (s.volumes ?? []).map((v) => {
      const [from, to] = v.split(':');
      return { from: join(here, from as string), to: to as string };
    });

  test('Prometheus scrapes every listener of every suite process, and the metrics port of those without one', () => {
    const config = parse(readFileSync(join(here, 'prometheus', 'prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
    };
    const targets = config.scrape_configs.flatMap((c) => c.static_configs.flatMap((sc) => sc.targets)).sort();
    const expected = suite
      .flatMap(([name, s]) => {
        const env = envOf(s);
        const edges = rolesOf(name, s).filter((r): r is keyof typeof EDGE_ROLES => r in EDGE_ROLES);
        if (edges.length === 0) return env.SUITE_METRICS_PORT ? [`${name}:${env.SUITE_METRICS_PORT}`] : [];
        return edges.map((r) => `${name}:${env[PORT_VARIABLES[EDGE_ROLES[r]]]}`);
      })
      .sort();
    expect(targets).toEqual(expected);
    // A process with actor roles only (the chain writers) must be scraped too.
    expect(expected.some((t) => t.startsWith('actors:'))).toBe(true);
  });

  test("mount the repository's rules, provisioning and dashboard, which exist", () => {
    for (const { from } of [...mounted(prometheus), ...mounted(grafana)]) expect({ from, exists: existsSync(from) }).toEqual({ from, exists: true });
    expect(mounted(prometheus).find((m) => m.to === '/etc/prometheus/rules.yml')?.from).toBe(join(here, '..', 'observability', 'prometheus', 'rules.yml'));
    const provider = parse(readFileSync(join(here, 'grafana', 'provisioning', 'dashboards', 'suite.yml'), 'utf8')) as {
      providers: Array<{ options: { path: string } }>;
    };
    const dashboards = mounted(grafana).find((m) => m.to.replace(/\/$/, '') === provider.providers[0]?.options.path);
    expect(dashboards?.from).toBe(join(here, '..', 'observability', 'grafana'));
  });

  test('the dashboard reads only series the suite serves or the rules record', () => {
    const rules = readFileSync(join(here, '..', 'observability', 'prometheus', 'rules.yml'), 'utf8');
    const recorded = new Set([...rules.matchAll(/- record: (\S+)/g)].map((m) => m[1]));
    const served = /^(suite_|scheduler_|nodejs_|http_)/;
    const dashboard = JSON.parse(readFileSync(join(here, '..', 'observability', 'grafana', 'suite-dashboard.json'), 'utf8')) as {
      panels: Array<{ datasource: { uid: string }; targets: Array<{ expr: string }> }>;
    };
    const datasource = parse(readFileSync(join(here, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8')) as {
      datasources: Array<{ uid: string }>;
    };
    expect(dashboard.panels.length).toBeGreaterThan(10);
    for (const panel of dashboard.panels) {
      expect(panel.datasource.uid).toBe(datasource.datasources[0]?.uid);
      for (const { expr } of panel.targets) {
        const names = [
          ...expr
            .replace(/\{[^}]*\}/g, '')
            .replace(/\[[^\]]*\]/g, '')
            .matchAll(/[a-z_:][a-z0-9_:]*(?=\s*(?:$|[)\s]))/g),
        ].map((m) => m[0]);
        const series = names.filter((n) => served.test(n) || n.includes(':'));
        expect({ expr, found: series.length > 0 }).toEqual({ expr, found: true });
        for (const n of series) expect({ expr, n, known: n.includes(':') ? recorded.has(n) : true }).toEqual({ expr, n, known: true });
      }
    }
  });
});
