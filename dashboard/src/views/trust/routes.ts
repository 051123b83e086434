import { lazy, type Component } from 'solid-js';

type TrustViews = typeof import('./index');

/** The trust views share one chunk (views/trust/index.ts), loaded on the first visit; each route picks its component from it. */
const view = (name: keyof TrustViews) => lazy(() => import('./index').then((m) => ({ default: m[name] })));

/** Shaped as routes.ts's ViewRoute (declared here too: importing it back would make a cycle). */
export const TRUST_ROUTES: { path: string; label?: string; component: Component }[] = [
  { path: '/trust', label: 'Trust', component: view('TrustOverview') },
  { path: '/trust/subjects/:id', component: view('TrustSubject') },
  { path: '/trust/disputes', component: view('TrustDisputes') },
  { path: '/trust/disputes/:id', component: view('TrustDispute') },
  { path: '/trust/contracts', component: view('TrustContracts') },
  { path: '/trust/contracts/:id', component: view('TrustContract') },
  { path: '/trust/chains', component: view('TrustChains') },
  { path: '/trust/chains/:id', component: view('TrustChain') },
];
