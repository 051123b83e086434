import { composeConfig, type ConfigSection, type Env, type SharedConfig, type StoredSecrets } from '../config/index.ts';
import { spineService } from './spine/index.ts';
import { tokenService } from './token/index.ts';
import { oauthService } from './oauth/index.ts';
import { schedulerService } from './scheduler/index.ts';
import { trustService } from './trust/index.ts';
import { connectorsService } from './connectors/index.ts';
import { mcpService } from './mcp-gateway/index.ts';
import { benchService } from './bench/index.ts';
import { dashboardService } from './dashboard/index.ts';
import type { ServiceModule } from './kit/index.ts';

/**
 * Every service of the suite, in start order: the spine first (the chains and revocation the others
 * rely on). Adding a service adds its folder and one line here (docs/ARCHITECTURE.md); its section
 * of the configuration comes with it.
 */
const MODULES = [
  spineService,
  tokenService,
  oauthService,
  schedulerService,
  trustService,
  connectorsService,
  mcpService,
  benchService,
  dashboardService,
] as const;

export const SERVICE_MODULES: readonly ServiceModule[] = Object.freeze([...MODULES]);

/** A module's section (`object`, nothing, for a module without one). */
type SectionOf<M> = M extends { readonly config?: ConfigSection<infer S> } ? S : never;
/** `A | B` as `A & B`: every module's section at once. */
type AllOf<U> = (U extends unknown ? (section: U) => void : never) extends (section: infer I) => void ? I : never;

type ServiceSections = AllOf<SectionOf<(typeof MODULES)[number]>>;

/** The suite's configuration: the shared sections (config/) and every module's own. */
export type SuiteConfig = SharedConfig & ServiceSections;

/**
 * The suite's configuration, read from `env` once, checked, defaulted and frozen: the shared
 * sections first, then each module's section in the order of the list. A bad value stops the start
 * with a ConfigError naming the variable.
 */
export function loadConfig(env: Env, stored?: StoredSecrets): SuiteConfig {
  return composeConfig<ServiceSections>(env, stored, SERVICE_MODULES);
}

export type { ServiceModule, ActorContext, RouteContext, ActorRoleName } from './kit/index.ts';
