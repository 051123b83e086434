import { lazy, type Component } from 'solid-js';
import { Overview } from './views/Overview';
import { TRUST_ROUTES } from './views/trust/routes';

/**
 * Every view: its hash route, its name in the navigation, and its component. Views other than the
 * overview load on first visit (their own chunk), so the first screen's bundle stays small.
 */
export interface ViewRoute {
  path: string;
  label?: string;
  component: Component;
}

export const ROUTES: readonly ViewRoute[] = [
  { path: '/', label: 'Overview', component: Overview },
  { path: '/chain', label: 'Trace chain', component: lazy(() => import('./views/Chain').then((m) => ({ default: m.Chain }))) },
  { path: '/records/:id', component: lazy(() => import('./views/Record').then((m) => ({ default: m.RecordView }))) },
  { path: '/attention', label: 'Attention', component: lazy(() => import('./views/attention/Attention').then((m) => ({ default: m.Attention }))) },
  { path: '/tokens', label: 'Tokens', component: lazy(() => import('./views/tokens/Tokens').then((m) => ({ default: m.Tokens }))) },
  { path: '/audit', label: 'Audit', component: lazy(() => import('./views/audit/Audit').then((m) => ({ default: m.Audit }))) },
  { path: '/tenants', label: 'Tenants', component: lazy(() => import('./views/tenants/Tenants').then((m) => ({ default: m.Tenants }))) },
  { path: '/tenants/:id', component: lazy(() => import('./views/tenants/TenantDetail').then((m) => ({ default: m.TenantDetail }))) },
  { path: '/scheduler', label: 'Scheduler', component: lazy(() => import('./views/scheduler/Scheduler').then((m) => ({ default: m.Scheduler }))) },
  { path: '/scheduler/schedules/:id', component: lazy(() => import('./views/scheduler/Schedule').then((m) => ({ default: m.Schedule }))) },
  { path: '/scheduler/tasks/:id', component: lazy(() => import('./views/scheduler/Task').then((m) => ({ default: m.Task }))) },
  { path: '/bench', label: 'Benchmarks', component: lazy(() => import('./views/bench/BenchHistory').then((m) => ({ default: m.BenchHistory }))) },
  { path: '/bench/runs/:jobId', component: lazy(() => import('./views/bench/BenchRun').then((m) => ({ default: m.BenchRun }))) },
  { path: '/bench/compare', component: lazy(() => import('./views/bench/BenchCompare').then((m) => ({ default: m.BenchCompare }))) },
  { path: '/connectors', label: 'Connectors', component: lazy(() => import('./views/Connectors').then((m) => ({ default: m.Connectors }))) },
  { path: '/connectors/:id', component: lazy(() => import('./views/Connectors').then((m) => ({ default: m.ConnectorView }))) },
  { path: '/gateway', label: 'MCP gateway', component: lazy(() => import('./views/gateway/Gateway').then((m) => ({ default: m.Gateway }))) },
  { path: '/approvals', label: 'Approvals', component: lazy(() => import('./views/approvals/Approvals').then((m) => ({ default: m.Approvals }))) },
  { path: '/oauth', label: 'OAuth', component: lazy(() => import('./views/oauth/OAuth').then((m) => ({ default: m.OAuth }))) },
  ...TRUST_ROUTES,
  { path: '/verify', label: 'Verifier', component: lazy(() => import('./views/Verifier').then((m) => ({ default: m.Verifier }))) },
];
