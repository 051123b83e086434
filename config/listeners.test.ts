import { describe, expect, it } from 'vitest';
import { listenerUrl } from './listeners.ts';

const ports = { token: 8081, scheduler: 8082, bench: 8083, connector: 8084, trust: 8085, dashboard: 3001 };

describe('where a process reaches a listener', () => {
  it('reaches a wildcard bind address on loopback', () => {
    expect(listenerUrl({ host: '0.0.0.0', ports, listenerUrls: {} }, 'trust')).toBe('http://127.0.0.1:8085');
    expect(listenerUrl({ host: '::', ports, listenerUrls: {} }, 'token')).toBe('http://127.0.0.1:8081');
  });

  it('brackets an IPv6 host and prefers the port the listener is bound to in this process', () => {
    expect(listenerUrl({ host: '::1', ports, listenerUrls: {} }, 'bench', 40123)).toBe('http://[::1]:40123');
  });

  it('takes the configured URL of a listener that runs elsewhere over any port', () => {
    expect(listenerUrl({ host: '127.0.0.1', ports, listenerUrls: { trust: 'http://trust:8085' } }, 'trust', 1234)).toBe('http://trust:8085');
  });

  it('knows nothing of a listener configured on port 0 in another process', () => {
    expect(listenerUrl({ host: '127.0.0.1', ports: { ...ports, connector: 0 }, listenerUrls: {} }, 'connector')).toBeUndefined();
  });
});
