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
 * rely on). Adding a service adds its folder and one line here (docs/ARCHITECTURE.md).
 */
export const SERVICE_MODULES: readonly ServiceModule[] = Object.freeze([
  spineService,
  tokenService,
  oauthService,
  schedulerService,
  trustService,
  connectorsService,
  mcpService,
  benchService,
  dashboardService,
]);

export type { ServiceModule, ActorContext, RouteContext, ActorRoleName } from './kit/index.ts';
