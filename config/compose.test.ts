import { describe, expect, it } from 'vitest';
import { composeConfig, ConfigError, type ConfigSection } from './index.ts';

const alpha: ConfigSection<{ alpha: { n: number } }> = ({ int }) => ({ alpha: { n: int('ALPHA_N', 1, 0, 9) } });

describe("composing the suite's configuration from sections", () => {
  it("puts each owner's section beside the shared sections, frozen", () => {
    const c = composeConfig<{ alpha: { n: number } }>({ ALPHA_N: '7' }, undefined, [{ name: 'a', config: alpha }, { name: 'none' }]);
    expect(c.alpha).toEqual({ n: 7 });
    expect(c.host).toBe('127.0.0.1');
    expect(Object.isFrozen(c) && Object.isFrozen(c.alpha)).toBe(true);
  });

  it("passes a section's refusal on as it is, naming the variable", () => {
    expect(() => composeConfig({ ALPHA_N: 'seven' }, undefined, [{ name: 'a', config: alpha }])).toThrow(
      expect.objectContaining({ name: 'ConfigError', variable: 'ALPHA_N', message: 'ALPHA_N: must be a whole number, got "seven"' }),
    );
  });

  it('stops the start naming both owners when a field is declared twice', () => {
    expect(() =>
      composeConfig({}, undefined, [
        { name: 'a', config: alpha },
        { name: 'b', config: alpha },
      ]),
    ).toThrow('the configuration field alpha is declared by the a service and by the b service');
    const host: ConfigSection<{ host: string }> = () => ({ host: 'elsewhere' });
    let error: unknown;
    try {
      composeConfig({}, undefined, [{ name: 'c', config: host }]);
    } catch (err) {
      error = err;
    }
    expect((error as Error).message).toBe('the configuration field host is declared by config/ and by the c service');
    // A mistake of the code, not of the environment: not a ConfigError, which would blame a variable.
    expect(error).not.toBeInstanceOf(ConfigError);
  });
});
