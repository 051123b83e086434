import { Dynamic } from 'solid-js/web';
import type { ApiResult } from '../../api';
import type { Plan, UsageReport } from './plans';
import { QuotaBars } from './QuotaBars';

/** One tenant's usage report: who, plan and status, and its quota bars. */
/** `heading`: one level below the heading the report sits under (h2 under a view's h1, h3 under a panel's h2). */
export function TenantReport(props: { report: UsageReport; plans: ApiResult<{ plans: Plan[] }> | undefined; heading: 'h2' | 'h3' }) {
  const t = () => props.report.tenant;
  return (
    <div class="tenant-report" data-testid="tenant-report" data-tenant={t().id}>
      <dl class="fields">
        <dt>tenant</dt>
        <dd>
          {t().name} (<code>{t().id}</code>)
        </dd>
        <dt>plan</dt>
        <dd>
          {props.report.plan.label} (<code>{t().plan}</code>)
        </dd>
        <dt>status</dt>
        <dd class={t().status === 'active' ? 'ok' : 'bad'}>
          {t().status}
          {t().statusReason ? `: ${t().statusReason}` : ''}
        </dd>
        <dt>period</dt>
        <dd>{props.report.period} (UTC month)</dd>
      </dl>
      <Dynamic component={props.heading}>Quotas this month</Dynamic>
      <QuotaBars report={props.report} plans={props.plans} />
    </div>
  );
}
