import { createSignal, For, Show, type Accessor } from 'solid-js';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { who } from '../../live';
import { createRead, grants } from '../../reading';
import { Loaded } from '../Loaded';
import { SCOPE, type ScheduleList, type ScheduleRow } from './types';
import { scheduleHref } from './TaskTable';
import { RelativeTime } from '../../time';
import { A } from '@solidjs/router';

const PAGE = 50;

/**
 * The schedules (`GET /schedule`): cron, next run, state. A token granting `schedule:create` gets
 * Pause / Resume / Delete on each row; the rows reload when live events touch them.
 */
export function Schedules(props: { tick: Accessor<number> }) {
  const [offset, setOffset] = createSignal(0);
  const [list, reload] = createRead(
    () => ({ o: offset(), t: token() }),
    ({ o }) => apiOf<ScheduleList>('scheduler', `/schedule?limit=${PAGE}&offset=${o}`),
    { tick: props.tick, everyMs: 15_000 },
  );
  const [outcome, setOutcome] = createSignal<{ ok: boolean; text: string } | null>(null);
  const [confirming, setConfirming] = createSignal<string | null>(null);
  const canManage = () => grants(who()?.scope ?? [], SCOPE.manage);

  const act = async (s: ScheduleRow, action: 'pause' | 'resume' | 'delete') => {
    setConfirming(null);
    const path = `/schedule/${encodeURIComponent(s.id)}${action === 'delete' ? '' : `/${action}`}`;
    const r = await apiOf<unknown>('scheduler', path, action === 'delete' ? { method: 'DELETE' } : { method: 'POST', body: {} });
    const done = { pause: 'paused', resume: 'resumed', delete: 'deleted' }[action];
    setOutcome(r.kind === 'ok' ? { ok: true, text: `Schedule ${s.id} ${done}.` } : { ok: false, text: `Schedule ${s.id} was not ${done}: ${r.message}` });
    reload();
  };

  return (
    <section aria-labelledby="schedules-title">
      <h2 id="schedules-title">Schedules</h2>
      <Show when={!canManage()}>
        <p>
          This token can read schedules; pausing, resuming and deleting them takes <code>{SCOPE.manage}</code>.
        </p>
      </Show>
      <Show when={outcome()}>
        {(o) => (
          <p class={o().ok ? 'ok' : 'bad'} role="status" data-testid="schedule-outcome">
            {o().text}
          </p>
        )}
      </Show>
      <Loaded result={list()} what={`the schedules (scope ${SCOPE.schedules})`}>
        {(v) => (
          <>
            <table class="schedules">
              <thead>
                <tr>
                  <th scope="col">Schedule</th>
                  <th scope="col">State</th>
                  <th scope="col">Cron</th>
                  <th scope="col">Next run</th>
                  <th scope="col">Last fired</th>
                  <th scope="col">Firings</th>
                  <Show when={canManage()}>
                    <th scope="col" class="actions">
                      Actions
                    </th>
                  </Show>
                </tr>
              </thead>
              <tbody>
                <For
                  each={v.schedules}
                  fallback={
                    <tr>
                      <td colspan="7">No schedules.</td>
                    </tr>
                  }
                >
                  {(s) => (
                    <tr data-schedule={s.id} data-state={s.state}>
                      <td>
                        <A href={scheduleHref(s.id)}>{s.id}</A>
                      </td>
                      <td class={`state ${s.state === 'active' ? 'ok' : 'warn'}`}>{s.state}</td>
                      <td>
                        <code>{s.cron}</code>
                        {s.timezone ? ` (${s.timezone})` : ' (UTC)'}
                      </td>
                      <td>
                        <RelativeTime iso={s.nextRun} none={s.state === 'paused' ? 'none while paused' : 'none'} />
                      </td>
                      <td>
                        <RelativeTime iso={s.lastFiredAt} none="never" />
                      </td>
                      <td>{s.firings}</td>
                      <Show when={canManage()}>
                        <td class="actions">
                          <Show
                            when={s.state === 'active'}
                            fallback={
                              <button type="button" onClick={() => act(s, 'resume')}>
                                Resume {s.id}
                              </button>
                            }
                          >
                            <button type="button" onClick={() => act(s, 'pause')}>
                              Pause {s.id}
                            </button>
                          </Show>{' '}
                          <Show
                            when={confirming() === s.id}
                            fallback={
                              <button type="button" onClick={() => setConfirming(s.id)}>
                                Delete {s.id}
                              </button>
                            }
                          >
                            <button type="button" class="danger" onClick={() => act(s, 'delete')}>
                              Really delete {s.id}
                            </button>{' '}
                            <button type="button" onClick={() => setConfirming(null)}>
                              Keep it
                            </button>
                          </Show>
                        </td>
                      </Show>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <Pager offset={offset()} total={v.total} page={PAGE} onOffset={setOffset} />
          </>
        )}
      </Loaded>
    </section>
  );
}

export function Pager(props: { offset: number; total: number; page: number; onOffset: (o: number) => void }) {
  return (
    <div class="pager">
      <button type="button" disabled={props.offset === 0} onClick={() => props.onOffset(Math.max(0, props.offset - props.page))}>
        Previous page
      </button>
      <span>
        {props.total === 0 ? 0 : props.offset + 1}–{Math.min(props.offset + props.page, props.total)} of {props.total}
      </span>
      <button type="button" disabled={props.offset + props.page >= props.total} onClick={() => props.onOffset(props.offset + props.page)}>
        Next page
      </button>
    </div>
  );
}
