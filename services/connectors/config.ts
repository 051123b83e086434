import { CONNECTOR_VARIABLES, settingProblem } from '../../core/connectors/index.ts';
import type { ConfigReader } from '../../config/index.ts';

export interface ConnectorsConfig {
  /**
   * The connectors' variables that are set (`CONNECTOR_*`, docs/CONNECTORS.md), by name. Holds
   * credentials: only the connector service reads it, and nothing logs it.
   */
  readonly connectors: Readonly<Record<string, string>>;
}

/**
 * The connectors' variables (docs/CONNECTORS.md), read once: each set one checked by its kind, so a
 * bad value stops the start with the variable's name; the error never quotes the value (it may be a
 * credential). Only the variables that are set are kept; defaults are the connectors' own.
 */
export function connectorsConfig({ str, fail }: ConfigReader): ConnectorsConfig {
  const values: Record<string, string> = {};
  for (const variable of CONNECTOR_VARIABLES) {
    const value = str(variable.name);
    if (value === undefined) continue;
    const problem = settingProblem(variable, value);
    if (problem !== undefined) throw fail(variable.name, problem);
    values[variable.name] = value;
  }
  return { connectors: values };
}
