import { afterEach, describe, expect, it } from 'vitest';
import { listRoutes, RouteDeclarationError } from './plugins/authority.ts';
import { testApp, type TestApp } from '../testing/edge-app.ts';
import type { Authority } from './authority.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.app.close();
  t = undefined;
});

describe('declared authority', () => {
  it('refuses to start when a route declares no authority', async () => {
    const app = testApp((app) => {
      app.get('/open', async () => ({ open: true }));
    });
    await expect(app).rejects.toThrow(RouteDeclarationError);
    await expect(
      testApp((app) => {
        app.get('/open', { config: {} }, async () => ({}));
      }),
    ).rejects.toThrow('route GET /open declares no authority');
  });

  it('refuses to start when a route nested in a sub-plugin declares no authority', async () => {
    const app = testApp(async (app) => {
      await app.register(
        async (sub) => {
          sub.post('/x', async () => ({}));
        },
        { prefix: '/nested' },
      );
    });
    await expect(app).rejects.toThrow('route POST /nested/x declares no authority');
  });

  it('refuses a scope that can never match', async () => {
    const app = testApp((app) => {
      app.get('/audit', { config: { authority: { kind: 'scope', scope: 'audit.read' } } }, async () => ({}));
    });
    await expect(app).rejects.toThrow('invalid scope "audit.read"');
  });

  it('refuses an authority of unknown kind', async () => {
    const app = testApp((app) => {
      app.get('/x', { config: { authority: { kind: 'everyone' } as unknown as Authority } }, async () => ({}));
    });
    await expect(app).rejects.toThrow('unknown authority kind');
  });

  it('lists every route with its authority, the operations routes included', async () => {
    t = await testApp((app) => {
      app.get('/executions/:id', { config: { authority: { kind: 'scope', scope: 'execution:read' } } }, async () => ({}));
      app.route({
        method: ['GET', 'POST'],
        url: '/executions/:id/replay',
        config: { authority: { kind: 'scope', scope: 'execution:read' } },
        handler: async () => ({}),
      });
      app.post('/identities', { config: { authority: { kind: 'admin' } } }, async () => ({}));
    });
    expect(listRoutes(t.app)).toEqual([
      { method: 'GET', url: '/capabilities', authority: { kind: 'token', admin: true } },
      { method: 'GET', url: '/executions/:id', authority: { kind: 'scope', scope: 'execution:read' } },
      { method: 'GET', url: '/executions/:id/replay', authority: { kind: 'scope', scope: 'execution:read' } },
      { method: 'POST', url: '/executions/:id/replay', authority: { kind: 'scope', scope: 'execution:read' } },
      { method: 'GET', url: '/health', authority: { kind: 'public' } },
      { method: 'POST', url: '/identities', authority: { kind: 'admin' } },
      { method: 'GET', url: '/metrics', authority: { kind: 'public' } },
      { method: 'GET', url: '/openapi.json', authority: { kind: 'public' } },
      { method: 'GET', url: '/ready', authority: { kind: 'public' } },
    ]);
  });
});
