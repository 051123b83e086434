/**
 * The categories of the suite's work that a CPU profile is split into (bench/profile-summary.ts),
 * recognized by the file (and for V8's own entries, the name) of a stack frame. A sample is charged
 * to the innermost frame that a rule recognizes; builtins (JSON.parse, no file) and Node's generic
 * internals (crypto, buffers, promises) are recognized by none, so they go to their caller.
 */

export interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export const IDLE = '(idle)';

export const CATEGORIES = [
  'HTTP and JSON (Node http, Fastify, routing, body parsing)',
  'edge framework (route pipeline, errors, request id)',
  'schema checks (edge)',
  'text rule',
  'bus hop and its validations',
  'capability check (token verify, revocation view, scope)',
  'rate limit and metering',
  'metrics (HTTP, process)',
  'audit entry (build, hash, sink)',
  'audit journal write and sync',
  'chain record (build, hash, writer)',
  'signing (hand-off to the signing thread)',
  'database driver and queries (pg, slonik, storage)',
  'response serialization',
  'logging',
  'tracing',
  'route handlers (services)',
  'event loop, timers, promises',
  'GC',
  'V8 (program: compiler, runtime, natives)',
] as const;

type Category = (typeof CATEGORIES)[number];

/** Ordered: the first rule a frame's file matches names its category. */
const FILE_RULES: ReadonlyArray<readonly [RegExp, Category]> = [
  [/\/actors\/audit\/journal\.ts|\/edge-http\/plugins\/durable-decision\.ts/, 'audit journal write and sync'],
  [/\/actors\/audit\/|\/core\/chain\/audit-/, 'audit entry (build, hash, sink)'],
  [/\/actors\/chain\/|\/core\/chain\/ed25519\.ts|^node:internal\/(per_context\/messageport|worker)/, 'signing (hand-off to the signing thread)'],
  [/\/core\/chain\/|\/actors\/chain-writer\/|\/actors\/executions\/|\/core\/tlog\/|\/actors\/execution-log\//, 'chain record (build, hash, writer)'],
  [/\/storage\/|node_modules\/(pg|pg-[a-z-]+|slonik|@slonik\/[^/]+)\//, 'database driver and queries (pg, slonik, storage)'],
  [/\/bus\/text-rule\.ts|\/edge-http\/plugins\/text-input\.ts/, 'text rule'],
  [/\/bus\/|node_modules\/@nats-io\//, 'bus hop and its validations'],
  [/\/edge-http\/plugins\/(rate-limit|metering)\.ts/, 'rate limit and metering'],
  [
    /\/edge-http\/plugins\/http-metrics\.ts|\/observability\/(metrics|process-metrics|promise-metrics)\.ts|node_modules\/(prom-client|bintrees)\/|^node:internal\/perf\//,
    'metrics (HTTP, process)',
  ],
  [
    /\/edge-http\/plugins\/(capability|capabilities|authority)\.ts|\/edge-http\/(authority|credentials|principal|caller)\.ts|\/cli\/edge\.ts|\/core\/capability\/|\/actors\/(capability|revocation|tokens)\//,
    'capability check (token verify, revocation view, scope)',
  ],
  [
    /\/edge-http\/plugins\/access-log\.ts|\/observability\/(logger|pretty-log)\.ts|node_modules\/(pino|pino-[a-z-]+|@pinojs\/[^/]+|sonic-boom|thread-stream)\//,
    'logging',
  ],
  [/tracing\.ts|work-spans\.ts|node_modules\/@opentelemetry\//, 'tracing'],
  [/node_modules\/fast-json-stringify\/|\/fastify\/lib\/(reply|error-serializer)\.js/, 'response serialization'],
  [/\/edge-http\/validation\.ts|node_modules\/(typebox|ajv[a-z-]*|fast-uri)\//, 'schema checks (edge)'],
  [/\/edge-http\/|\/services\/kit\//, 'edge framework (route pipeline, errors, request id)'],
  [/\/services\//, 'route handlers (services)'],
  [
    /node_modules\/(fastify|find-my-way|@fastify\/[^/]+|avvio|light-my-request|secure-json-parse|content-type|fast-querystring|toad-cache|process-warning)\/|^node:(_http_|http|net|stream|internal\/(http|streams|stream_base|net|js_stream|url|querystring|dns))/,
    'HTTP and JSON (Node http, Fastify, routing, body parsing)',
  ],
  [/^node:internal\/(process\/task_queues|timers|async_hooks|process\/promises|event_target)|^node:(timers|events)/, 'event loop, timers, promises'],
];

const NAMED: Readonly<Record<string, string>> = {
  '(garbage collector)': 'GC',
  '(idle)': IDLE,
  '(program)': 'V8 (program: compiler, runtime, natives)',
};

function ruleFor(f: Frame): Category | undefined {
  for (const [pattern, category] of FILE_RULES) if (pattern.test(f.url)) return category;
  return undefined;
}

/**
 * The category of a sample whose stack is `stack` (innermost first). A schema check done by the bus
 * (its messages are TypeBox schemas) is the bus's; one that an edge route does stays the edge's.
 */
export function categoryOf(stack: readonly Frame[]): string {
  const named = NAMED[stack[0]?.functionName ?? ''];
  if (named !== undefined && stack[0]?.url === '') return named;
  for (let i = 0; i < stack.length; i++) {
    const c = ruleFor(stack[i]!);
    if (c === undefined) continue;
    if (c === 'schema checks (edge)' && stack.slice(i + 1).some((f) => /\/bus\//.test(f.url))) return 'bus hop and its validations';
    return c;
  }
  return 'other';
}
