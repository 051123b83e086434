/** The connector listener's registry entries (docs/CONNECTORS.md, "The registry"). */
export interface ConnectorVariable {
  name: string;
  description: string;
  secret: boolean;
  required: boolean;
  set: boolean;
  default?: string;
}
export interface ConnectorAction {
  name: string;
  description: string;
  effect: string;
  input: { required?: string[]; properties?: Record<string, { description?: string; type?: string }> };
}
export interface ConnectorInfo {
  id: string;
  title: string;
  description: string;
  configured: boolean;
  missing: string[];
  variables: ConnectorVariable[];
  verifies: string;
  actions: ConnectorAction[];
}

/** The scopes the connector routes ask for (docs/CONNECTORS.md): shown so a person knows which token to use. */
export const VERIFY_SCOPE = 'connector:read';
export const ACTION_SCOPE = 'connector:execute';
