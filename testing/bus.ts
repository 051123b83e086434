import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { createBus, type BusOptions } from '../bus/bus.ts';
import { eventSubject, requestSubject } from '../bus/define.ts';
import { createMemoryNetwork } from '../bus/memory-transport.ts';
import { connectNatsTransport } from '../bus/nats-transport.ts';
import type { Bus, Headers, Payload, Transport } from '../bus/index.ts';

/** Test fixtures shared by the bus contract suite; real transports only, no mocks. */

export const NATS_URL = process.env.SUITE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export interface Harness {
  readonly name: string;
  /** A new client connection: one per simulated process. */
  connect(): Promise<Transport>;
}

export function memoryHarness(): Harness {
  const network = createMemoryNetwork();
  return { name: 'memory', connect: async () => network.connect() };
}

export function natsHarness(): Harness {
  return {
    name: 'nats',
    async connect() {
      try {
        return await connectNatsTransport({ servers: NATS_URL, name: 'bus-contract-test' });
      } catch (cause) {
        // Fail, never skip: a contract that silently did not run proves nothing.
        throw new Error(`NATS is not reachable at ${NATS_URL}; start nats-server or set SUITE_TEST_NATS_URL (${String(cause)})`, { cause });
      }
    },
  };
}

/** Opens buses for one test and drains them all afterwards. */
export function busPool(harness: Harness) {
  const open: Bus[] = [];
  return {
    async open(options: BusOptions = {}): Promise<{ bus: Bus; transport: Transport }> {
      const transport = await harness.connect();
      const bus = createBus(transport, { requestTimeoutMs: 2000, ...options });
      open.push(bus);
      return { bus, transport };
    },
    async drainAll(): Promise<void> {
      await Promise.all(open.splice(0).map((bus) => bus.drain()));
    },
  };
}

/** A random subject prefix per test, so parallel runs on one NATS server never cross. */
export function uniquePrefix(): string {
  return `test${randomBytes(6).toString('hex')}`;
}

export function subjectsFor(prefix: string) {
  return {
    echo: requestSubject(
      `${prefix}.echo`,
      Type.Object({ text: Type.String(), n: Type.Optional(Type.Integer({ minimum: 0 })) }),
      Type.Object({ text: Type.String(), by: Type.Optional(Type.String()), headers: Type.Optional(Type.Record(Type.String(), Type.String())) }),
    ),
    happened: eventSubject(`${prefix}.happened`, Type.Object({ id: Type.Integer() })),
  };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Rejects with a message saying what did not happen, instead of a bare test timeout. */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `hit()` was called `n` times. */
export function countdown(n: number): { hit(): void; done: Promise<void> } {
  const d = deferred();
  let left = n;
  return {
    hit() {
      left--;
      if (left === 0) d.resolve();
    },
    done: d.promise,
  };
}

/**
 * A real propagation over AsyncLocalStorage, standing in for OpenTelemetry's W3C propagator: the
 * "current trace" is the traceparent string held in the store.
 */
export function storePropagation() {
  const store = new AsyncLocalStorage<string>();
  return {
    store,
    propagation: {
      inject(headers: Headers): undefined {
        const current = store.getStore();
        if (current !== undefined) headers.traceparent = current;
      },
      extract<T>(headers: Headers, fn: () => T): T {
        const incoming = headers.traceparent;
        return incoming === undefined ? fn() : store.run(incoming, fn);
      },
    },
  };
}

export const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const bytes = (text: string): Uint8Array => encoder.encode(text);
export const parse = (payload: Payload): unknown => JSON.parse(typeof payload === 'string' ? payload : decoder.decode(payload));
