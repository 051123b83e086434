import { For, Match, Switch } from 'solid-js';
import type { ApiResult } from '../../api';
import { Unknown } from '../Unknown';
import { meteredOf, quotaState, type Plan, type UsageReport } from './plans';
import './tenants.css';

type Figure = { kind: 'known'; value: number } | { kind: 'unknown'; reason: string };

/**
 * One bar per metered quantity: this month's use against the limit of the tenant's plan as
 * `GET /plans` publishes it. A use or a limit that cannot be read is UNKNOWN, never 0; an unlimited
 * one says so and draws no bar.
 */
export function QuotaBars(props: { report: UsageReport; plans: ApiResult<{ plans: Plan[] }> | undefined }) {
  const limitOf = (metric: string): Figure => {
    const p = props.plans;
    if (p === undefined) return { kind: 'unknown', reason: 'the plans are still loading' };
    if (p.kind !== 'ok') return { kind: 'unknown', reason: `GET /plans could not be read: ${p.message}` };
    const plan = p.value.plans.find((x) => x.id === props.report.tenant.plan);
    if (plan === undefined) return { kind: 'unknown', reason: `the plan "${props.report.tenant.plan}" is not among GET /plans` };
    const limit = plan.limits[metric];
    return typeof limit === 'number' ? { kind: 'known', value: limit } : { kind: 'unknown', reason: `the plan "${plan.id}" has no limit named ${metric}` };
  };
  const usedOf = (metric: string): Figure => {
    const used = props.report.usage[metric];
    return typeof used === 'number' ? { kind: 'known', value: used } : { kind: 'unknown', reason: `the usage report has no count for ${metric}` };
  };
  return (
    <ul class="quotas" aria-label={`quotas of ${props.report.tenant.name} for ${props.report.period}`}>
      <For each={meteredOf(props.report)}>
        {(metric) => {
          const used = () => usedOf(metric);
          const limit = () => limitOf(metric);
          const state = () => {
            const u = used(),
              l = limit();
            return u.kind === 'known' && l.kind === 'known' ? quotaState(u.value, l.value) : 'unknown';
          };
          const percent = () => {
            const u = used(),
              l = limit();
            return u.kind === 'known' && l.kind === 'known' && l.value > 0
              ? Math.min(100, Math.floor((u.value * 100) / l.value))
              : l.kind === 'known' && l.value === 0
                ? 100
                : 0;
          };
          return (
            <li data-metric={metric} data-state={state()}>
              <span class="quota-name">{metric}</span>
              <Switch>
                <Match when={state() === 'unknown'}>
                  <span class="quota-figure">
                    {(() => {
                      const u = used();
                      return u.kind === 'known' ? `${u.value} used` : <Unknown reason={u.reason} />;
                    })()}
                    {' / '}
                    {(() => {
                      const l = limit();
                      return l.kind === 'known' ? l.value < 0 ? 'unlimited' : String(l.value) : <Unknown reason={l.reason} />;
                    })()}
                  </span>
                </Match>
                <Match when={state() === 'unlimited'}>
                  <span class="quota-figure" data-testid="quota-figure">
                    {(used() as { value: number }).value} used · unlimited
                  </span>
                </Match>
                <Match when={true}>
                  <span
                    class="quota-bar"
                    role="meter"
                    aria-label={`${metric} used`}
                    aria-valuemin="0"
                    aria-valuemax={(limit() as { value: number }).value}
                    aria-valuenow={(used() as { value: number }).value}
                  >
                    <span class={`quota-fill ${state()}`} style={{ width: `${percent()}%` }} />
                  </span>
                  <span class={`quota-figure ${state() === 'ok' ? '' : state()}`} data-testid="quota-figure">
                    {(used() as { value: number }).value} / {(limit() as { value: number }).value} ({percent()}%)
                    {state() === 'bad' ? ' · limit reached' : state() === 'warn' ? ' · near the limit' : ''}
                  </span>
                </Match>
              </Switch>
            </li>
          );
        }}
      </For>
    </ul>
  );
}
