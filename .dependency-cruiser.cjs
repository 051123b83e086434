/**
 * The layering of docs/ARCHITECTURE.md as rules, checked by `npm test` (dependency-cruiser).
 * Layers, bottom to top: core < bus < storage, config, observability < actors < edge-http, edge-mcp
 * < services < cli. Test harnesses (testing/), whole-suite and multi-process tests (integration/),
 * benchmarks (bench/) and the cluster tools (compose/) stand outside and may use any layer; no
 * product folder may use them.
 */
const PRODUCT = '^(core|bus|storage|config|observability|actors|edge-http|edge-mcp|services|cli)/';
// A module is a top-level folder, or for core, actors and services each of their sub-folders.
const above = (layers) => `^(${layers.join('|')})/`;

/** Folder -> the layers above it, which it must never import. */
const LAYERS = [
  ['core', ['bus', 'storage', 'config', 'observability', 'actors', 'edge-http', 'edge-mcp', 'services', 'cli']],
  ['bus', ['storage', 'config', 'observability', 'actors', 'edge-http', 'edge-mcp', 'services', 'cli']],
  ['storage', ['actors', 'edge-http', 'edge-mcp', 'services', 'cli']],
  ['config', ['storage', 'actors', 'edge-http', 'edge-mcp', 'services', 'cli']],
  ['observability', ['storage', 'actors', 'edge-http', 'edge-mcp', 'services', 'cli']],
  ['actors', ['edge-http', 'edge-mcp', 'services', 'cli']],
  ['edge-http', ['actors', 'edge-mcp', 'services', 'cli']],
  // The MCP edge stands on edge-http (its schemas, capability check types); never the reverse.
  ['edge-mcp', ['actors', 'storage', 'services', 'cli']],
  ['services', ['cli']],
];

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycles.', from: {}, to: { circular: true } },
    ...LAYERS.map(([layer, higher]) => ({
      name: `no-upward-from-${layer}`,
      severity: 'error',
      comment: `${layer}/ sits below ${higher.join(', ')}: it must not import them.`,
      from: { path: `^${layer}/` },
      to: { path: above(higher) },
    })),
    {
      name: 'no-test-code-in-product',
      severity: 'error',
      comment: 'Product code never imports test harnesses, tests, benchmarks or the cluster tools.',
      from: { path: PRODUCT, pathNot: '\\.test\\.ts$' },
      to: { path: ['^(testing|integration|bench|compose)/', '\\.test\\.ts$'] },
    },
    {
      name: 'dashboard-is-browser-code',
      severity: 'error',
      comment:
        'dashboard/ runs in the browser: it imports nothing of the server but pure core/ (it talks to the suite over HTTP and its socket). Its tests may read core fixtures (the published proof vectors).',
      from: { path: '^dashboard/', pathNot: '\\.test\\.ts$' },
      to: { path: PRODUCT, pathNot: '^core/[^/]+/index\\.ts$' },
    },
    {
      name: 'client-is-standalone',
      severity: 'error',
      comment: 'client/ is published on its own: its library code imports nothing of the server but pure core/ (bundled into it), never test code.',
      from: { path: '^client/src/' },
      to: { path: [PRODUCT, '^(testing|integration|bench|compose|dashboard)/'], pathNot: '^core/[^/]+/index\\.ts$' },
    },
    {
      name: 'witness-is-standalone',
      severity: 'error',
      comment: 'witness/ is a package of its own, run apart from the suite: its code imports nothing of the server but pure core/, never test code.',
      from: { path: '^witness/src/', pathNot: '\\.test\\.ts$' },
      to: { path: [PRODUCT, '^(testing|integration|bench|compose|dashboard|client)/'], pathNot: '^core/[^/]+/index\\.ts$' },
    },
    {
      name: 'only-the-cli-runs-the-witness',
      severity: 'error',
      comment: '`suite witness` starts the witness through its index.ts; no other product code depends on it.',
      from: { path: PRODUCT, pathNot: '^cli/' },
      to: { path: '^witness/' },
    },
    {
      name: 'the-cli-reaches-the-witness-by-its-index',
      severity: 'error',
      comment: 'The witness package is reached through witness/src/index.ts only.',
      from: { path: '^cli/' },
      to: { path: '^witness/', pathNot: '^witness/src/index\\.ts$' },
    },
    {
      name: 'no-product-imports-client',
      severity: 'error',
      comment: 'The suite does not depend on its own client library.',
      from: { path: PRODUCT },
      to: { path: '^client/' },
    },
    {
      name: 'no-product-imports-dashboard',
      severity: 'error',
      comment: 'The server serves the built dashboard as files; it never imports its source.',
      from: { path: PRODUCT },
      to: { path: '^dashboard/' },
    },
    {
      name: 'no-service-to-service',
      severity: 'error',
      comment: 'Services talk over the bus; one service folder never imports another (services/kit is the shared contract).',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/[^/]+/', pathNot: ['^services/$1/', '^services/kit/index\\.ts$'] },
    },
    {
      name: 'routes-do-not-reach-actors',
      severity: 'error',
      comment:
        "Edges hold no domain logic: a service's routes reach its actors over the bus only (the spine's and the token service's actors sit in folders of their own).",
      from: { path: '^services/[^/]+/routes' },
      to: {
        path: '^(actors/|services/[^/]+/(actor|store)|services/spine/(executions|tlog|retention)/|services/token/(tokens|tenancy|identities|models|revocation)/)',
      },
    },
    {
      name: 'index-only-core-actors-services',
      severity: 'error',
      comment: 'Another folder is reached through its index.ts only.',
      from: { path: '^(core|actors|services)/([^/]+)/' },
      to: {
        path: PRODUCT,
        pathNot: ['^$1/$2/', '^(core|actors|services)/[^/]+/index\\.ts$', '^(bus|storage|config|observability|edge-http|edge-mcp|cli)/index\\.ts$'],
      },
    },
    {
      name: 'index-only-flat-folders',
      severity: 'error',
      comment: 'Another folder is reached through its index.ts only.',
      from: { path: '^(bus|storage|config|observability|edge-http|edge-mcp|cli)/' },
      to: {
        path: PRODUCT,
        pathNot: [
          '^$1/',
          '^services/index\\.ts$',
          '^(core|actors|services)/[^/]+/index\\.ts$',
          '^(bus|storage|config|observability|edge-http|edge-mcp|cli)/index\\.ts$',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^\\.data', '^dashboard/dist'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
