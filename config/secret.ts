import { inspect } from 'node:util';

/**
 * A credential the suite holds for someone else (an LLM provider's API key): readable only by an
 * explicit `reveal()`, and shown as `[redacted]` by JSON, string conversion and `util.inspect`, so a
 * configuration that reaches a log line or an answer never carries it.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return '[redacted]';
  }
}
