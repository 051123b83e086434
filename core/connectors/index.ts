/**
 * Connectors' pure parts: the interface every connector implements (built-in or generated), the
 * built-ins' manifests and input schemas, configuration state, Standard Webhooks signing, and the
 * rule-based connector generator. No I/O: the code that calls providers is in services/connectors.
 */
export {
  ConnectorError,
  type Connector,
  type ConnectorActionManifest,
  type ConnectorActionRun,
  type ConnectorContext,
  type ConnectorFailureKind,
  type ConnectorManifest,
  type ConnectorVariable,
  type HttpAnswer,
  type HttpCall,
  type Verification,
} from './types.ts';
export { BUILT_IN_MANIFESTS, CONNECTOR_VARIABLES, GITHUB, HTTP, POSTGRES, SLACK, WEBHOOK } from './catalogue.ts';
export { configurationState, settingProblem, settingsOf, type ConfigurationState, type VariableState } from './settings.ts';
export { signStandardWebhook, type StandardWebhookHeaders } from './webhook-signing.ts';
export { Str, Pattern, wellFormed } from './schemas.ts';
export { generateConnector, GENERATOR, MAX_PROMPT_LENGTH, type GeneratedConnector } from './generate/generate.ts';
