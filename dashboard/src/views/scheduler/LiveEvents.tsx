import type { Accessor } from 'solid-js';
import { connection } from '../../live';
import { Unknown } from '../Unknown';
import { EventTable } from './Log';
import type { FeedEvent } from './feed';

/** The scheduler's events as they arrive over the socket, newest first (since this view opened). */
export function LiveEvents(props: { events: Accessor<FeedEvent[]> }) {
  return (
    <section aria-labelledby="live-title">
      <h2 id="live-title">Live events</h2>
      <p role="status">
        {connection().state === 'open' ? (
          'Following the scheduler live: new events appear here and the rows they touch reload.'
        ) : (
          <>
            Live updates: <Unknown reason={connection().reason} /> (the tables still reload every few seconds).
          </>
        )}
      </p>
      <EventTable events={props.events()} testid="live-events" empty="No event since this view opened." />
    </section>
  );
}
