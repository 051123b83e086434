import { followScheduler } from './feed';
import { LiveEvents } from './LiveEvents';
import { Log } from './Log';
import { Queue } from './Queue';
import { QueueDepth } from './QueueDepth';
import { Runtime } from './Runtime';
import { Schedules } from './Schedules';
import './scheduler.css';

/**
 * `#/scheduler`: schedules, the queue and its depth per state, the runtime's health and log, and the
 * scheduler's events live. Each panel reads its own route, so a token with some of the scopes sees
 * those panels and a "not permitted" for the others.
 */
export function Scheduler() {
  const feed = followScheduler();
  return (
    <section aria-labelledby="scheduler-title" class="scheduler">
      <h1 id="scheduler-title">Schedules and queue</h1>
      <p>
        What the scheduler will run and what it ran: pause, resume or delete a schedule (scope <code>schedule:create</code>), filter the queue by state, open a
        task for its status. Reading takes <code>schedule:read</code>, <code>queue:read</code> and <code>runtime:read</code>.
      </p>
      <div class="scheduler-top">
        <QueueDepth tick={feed.tasksTick} />
        <Runtime tick={feed.tasksTick} />
      </div>
      <Schedules tick={feed.schedulesTick} />
      <Queue tick={feed.tasksTick} />
      <LiveEvents events={feed.events} />
      <Log tick={feed.tasksTick} />
    </section>
  );
}
