import { lazy, type Component } from 'solid-js';
import { Overview } from './views/Overview';

/**
 * Every view: its hash route, its name in the navigation, and its component. Views other than the
 * overview load on first visit (their own chunk), so the first screen's bundle stays small.
 */
export interface ViewRoute { path: string; label?: string; component: Component }

export const ROUTES: readonly ViewRoute[] = [
  { path: '/', label: 'Overview', component: Overview },
  { path: '/chain', label: 'Trace chain', component: lazy(() => import('./views/Chain').then((m) => ({ default: m.Chain }))) },
  { path: '/records/:id', component: lazy(() => import('./views/Record').then((m) => ({ default: m.RecordView }))) },
  { path: '/verify', label: 'Verifier', component: lazy(() => import('./views/Verifier').then((m) => ({ default: m.Verifier }))) },
  { path: '/bench', label: 'Benchmarks', component: lazy(() => import('./views/bench/BenchHistory').then((m) => ({ default: m.BenchHistory }))) },
  { path: '/bench/runs/:jobId', component: lazy(() => import('./views/bench/BenchRun').then((m) => ({ default: m.BenchRun }))) },
  { path: '/bench/compare', component: lazy(() => import('./views/bench/BenchCompare').then((m) => ({ default: m.BenchCompare }))) },
  { path: '/connectors', label: 'Connectors', component: lazy(() => import('./views/Connectors').then((m) => ({ default: m.Connectors }))) },
  { path: '/connectors/:id', component: lazy(() => import('./views/Connectors').then((m) => ({ default: m.ConnectorView }))) },
];
