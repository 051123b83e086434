import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { compilersPlugin } from './plugins/compilers.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { openApiPlugin } from './plugins/openapi.ts';
import { genRequestId, requestIdPlugin } from './plugins/request-id.ts';
import { tracingPlugin } from './plugins/tracing.ts';

const onUnmatched = (): void => {};

describe('the order of the edge parts', () => {
  it("refuses to start when a part is registered before a part it depends on, with Fastify's own error", async () => {
    const app = Fastify();
    // The request id's hook must come after tracing's: registered alone, Fastify refuses it.
    app.register(requestIdPlugin);
    await expect(app.ready()).rejects.toMatchObject({
      code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED',
      message: "The dependency 'suite-tracing' of plugin 'suite-request-id' is not registered",
    });
    await app.close();
  });

  it('refuses OpenAPI registered before the route pipeline that must guard its own route', async () => {
    const app = Fastify();
    app.register(tracingPlugin, {});
    app.register(compilersPlugin);
    app.register(errorsPlugin, { onUnmatched });
    app.register(openApiPlugin, { service: 'token' });
    await expect(app.ready()).rejects.toMatchObject({
      code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED',
      message: "The dependency 'suite-route-pipeline' of plugin 'suite-openapi' is not registered",
    });
    await app.close();
  });

  it('starts a part once what it depends on is registered before it', async () => {
    const app = Fastify({ genReqId: genRequestId });
    app.register(tracingPlugin, {});
    app.register(requestIdPlugin);
    await app.ready();
    const res = await app.inject({ url: '/nowhere', headers: { 'x-request-id': 'abc-1' } });
    expect(res.headers['x-request-id']).toBe('abc-1');
    await app.close();
  });
});
