import { createResource, For } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { apiOf } from '../api';
import { token } from '../auth';
import { Loaded } from './Loaded';
import { ConnectorCard } from './connectors/ConnectorCard';
import type { ConnectorInfo } from './connectors/types';
import './connectors/connectors.css';

/**
 * `#/connectors`: every connector (`GET /connectors`, public) with its configuration state, its
 * actions and the scopes they need, and a read-only "verify". Actions are not run from the page:
 * they write to third parties (Slack, GitHub, webhooks), and the API and MCP tools are the place for that.
 */
export function Connectors() {
  const [list] = createResource(token, () => apiOf<{ connectors: ConnectorInfo[] }>('connector', '/connectors'));
  return (
    <section aria-labelledby="connectors-title">
      <h1 id="connectors-title">Connectors</h1>
      <p>
        The outside systems the suite's agents can act on. Verify checks a connector's credentials without writing anything (token with{' '}
        <code>connector:read</code>); actions need <code>connector:execute</code> and are run through the API, each recorded in the execution chain.
      </p>
      <Loaded result={list()} what="the connectors">
        {(v) => (
          <div class="connectors">
            <For each={v.connectors}>{(c) => <ConnectorCard c={c} />}</For>
          </div>
        )}
      </Loaded>
    </section>
  );
}

/** `#/connectors/<id>`: one connector (`GET /connectors/{id}`), with its actions' input fields and its variables. */
export function ConnectorView() {
  const params = useParams<{ id: string }>();
  const [one] = createResource(
    () => ({ id: params.id, t: token() }),
    ({ id }) => apiOf<ConnectorInfo>('connector', `/connectors/${encodeURIComponent(id)}`),
  );
  return (
    <section aria-labelledby="connector-title">
      <p>
        <A href="/connectors">← all connectors</A>
      </p>
      <h1 id="connector-title">Connector {params.id}</h1>
      <Loaded result={one()} what={`the connector ${params.id}`}>
        {(c) => <ConnectorCard c={c} detailed />}
      </Loaded>
    </section>
  );
}
