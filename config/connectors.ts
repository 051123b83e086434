import { CONNECTOR_VARIABLES, settingProblem } from '../core/connectors/index.ts';

/**
 * The connectors' variables (docs/CONNECTORS.md), read once: each set one checked by its kind, so a
 * bad value stops the start with the variable's name; the error never quotes the value (it may be a
 * credential). Only the variables that are set are kept; defaults are the connectors' own.
 */
export function loadConnectorSettings(
  str: (name: string) => string | undefined,
  fail: (variable: string, message: string) => Error,
): Readonly<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const variable of CONNECTOR_VARIABLES) {
    const value = str(variable.name);
    if (value === undefined) continue;
    const problem = settingProblem(variable, value);
    if (problem !== undefined) throw fail(variable.name, problem);
    values[variable.name] = value;
  }
  return values;
}
