import { defineService } from '../kit/index.ts';
import { dashboardRoutes } from './routes.ts';

export { DASHBOARD_DIST } from './routes.ts';

/**
 * The dashboard (listener 3001, docs/DASHBOARD.md): the Solid app of `dashboard/`, built by
 * `npm run build`, served as static files; the chain's reads on the same origin; and the live socket
 * fed from the bus (traces appended, revocations) and from probes of every listener's health. It has
 * no actors and no tables: it reads what the other services answer.
 */
export const dashboardService = defineService({
  name: 'dashboard',
  listener: 'dashboard',
  actorRoles: [],
  routes: ({ bus, listenerUrl, metrics, audit }) => dashboardRoutes({ bus, listenerUrl, metrics, audit }),
});
