/**
 * Policy generation (plain-language description in, scopes and a governance policy out) and the list
 * of configured LLM providers. Both are pure: they take data and return data, so the edge runs them
 * itself, without a bus request (docs/AI-POLICY.md).
 */
export { generatePolicy, MAX_SCOPES, type GeneratedPolicy, type PolicyRequest, type PolicyRule, type Matched } from './generate.ts';
export { GENERATOR } from './lexicon.ts';
export { configuredProviders, type LlmProvider, type LlmSettings } from './providers.ts';
