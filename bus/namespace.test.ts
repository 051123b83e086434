import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { createBus, createMemoryNetwork, namespacedTransport, requestSubject } from './index.ts';

const echo = requestSubject('suite.test.echo', Type.Object({ n: Type.Integer() }), Type.Object({ n: Type.Integer(), by: Type.String() }));

describe('bus namespaces', () => {
  it('keep deployments sharing one broker from answering each other', async () => {
    const network = createMemoryNetwork();
    const blue = createBus(namespacedTransport(network.connect(), 'blue'));
    const green = createBus(namespacedTransport(network.connect(), 'green'));
    const blueClient = createBus(namespacedTransport(network.connect(), 'blue'));
    const plain = createBus(network.connect());
    blue.serve(echo, ({ data }) => ({ ok: true, value: { n: data.n, by: 'blue' } }));
    green.serve(echo, ({ data }) => ({ ok: true, value: { n: data.n, by: 'green' } }));
    for (let n = 0; n < 10; n++) {
      expect(await blueClient.request(echo, { n })).toEqual({ ok: true, value: { n, by: 'blue' } });
    }
    expect(await plain.request(echo, { n: 1 })).toMatchObject({ ok: false, transport: 'BUS_NO_RESPONDERS' });
    await Promise.all([blue, green, blueClient, plain].map((b) => b.drain()));
  });

  it('refuses a namespace that is not a valid subject prefix', () => {
    expect(() => namespacedTransport(createMemoryNetwork().connect(), 'bad space')).toThrow(/namespace/);
    expect(() => namespacedTransport(createMemoryNetwork().connect(), 'a.>')).toThrow(/namespace/);
  });
});
