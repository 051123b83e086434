/**
 * The names of the edge's parts as Fastify plugins. Each part declares the parts it needs in its
 * `dependencies` (fastify-plugin), so Fastify refuses to start an app that registers a part before
 * what it relies on (`FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED`), instead of an order kept by comments.
 * docs/ARCHITECTURE.md ("The edges") draws the graph.
 */
export const PART = Object.freeze({
  tracing: 'suite-tracing',
  compilers: 'suite-compilers',
  textInput: 'suite-text-input',
  principal: 'suite-principal',
  requestId: 'suite-request-id',
  errors: 'suite-errors',
  routePipeline: 'suite-route-pipeline',
  metering: 'suite-metering',
  openApi: 'suite-openapi',
  opsRoutes: 'suite-ops-routes',
  capabilitiesRoute: 'suite-capabilities-route',
});
