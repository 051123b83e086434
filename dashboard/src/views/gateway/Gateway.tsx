import { For, Show } from 'solid-js';
import { A } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { createRead } from '../../reading';
import { RelativeTime } from '../../time';
import { Loaded } from '../Loaded';
import { GATEWAY_READ_SCOPE, type GatewayCalls, type UpstreamRow } from './types';
import './gateway.css';

const STATE_CLASS: Record<UpstreamRow['state'], string> = { ready: 'ok', connecting: 'warn', down: 'bad', stopped: 'warn' };
const recordHref = (id: string) => `/records/${encodeURIComponent(id)}`;

/**
 * `#/gateway`: the MCP gateway's upstream servers and their states (`GET /mcp/upstreams`), its calls
 * per upstream and tool and the latest calls (`GET /mcp/calls`), each linked to the signed record
 * that traces it. Both read the token listener of this dashboard's suite (one process's counts).
 */
export function Gateway() {
  const [upstreams] = createRead(token, () => apiOf<{ upstreams: UpstreamRow[] }>('token', '/mcp/upstreams'), { everyMs: 10_000 });
  const [calls] = createRead(token, () => apiOf<GatewayCalls>('token', '/mcp/calls'), { everyMs: 10_000 });
  return (
    <section class="gateway" aria-labelledby="gateway-title">
      <h1 id="gateway-title">MCP gateway</h1>
      <p>
        Other MCP servers whose tools, resources and prompts agents reach through the suite: each call checked against the caller's token, audited, forwarded
        with the server's own credentials and signed on the execution chain (token with <code>{GATEWAY_READ_SCOPE}</code>).
      </p>
      <section aria-labelledby="upstreams-title">
        <h2 id="upstreams-title">Upstream servers</h2>
        <Loaded result={upstreams()} what={`the upstream servers (scope ${GATEWAY_READ_SCOPE})`}>
          {(v) => (
            <table data-testid="upstreams">
              <thead>
                <tr>
                  <th scope="col">Server</th>
                  <th scope="col">Transport</th>
                  <th scope="col">State</th>
                  <th scope="col">Tools</th>
                  <th scope="col">Restarts</th>
                  <th scope="col">In flight</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={v.upstreams}
                  fallback={
                    <tr>
                      <td colspan="7">No upstream servers: SUITE_MCP_UPSTREAMS is not set (docs/MCP.md).</td>
                    </tr>
                  }
                >
                  {(u) => (
                    <tr data-upstream={u.name} data-state={u.state}>
                      <th scope="row">{u.name}</th>
                      <td>{u.transport === 'http' ? 'Streamable HTTP' : 'stdio'}</td>
                      <td class={`state ${STATE_CLASS[u.state]}`}>{u.state}</td>
                      <td class="number">{u.tools}</td>
                      <td class="number">{u.restarts}</td>
                      <td class="number">{u.inFlight}</td>
                      <td>{u.lastError ?? '—'}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          )}
        </Loaded>
      </section>
      <Loaded result={calls()} what={`the gateway's calls (scope ${GATEWAY_READ_SCOPE})`}>
        {(v) => (
          <>
            <section aria-labelledby="calls-title">
              <h2 id="calls-title">Calls per upstream and tool</h2>
              <p>
                Traced calls answered by this token listener since <RelativeTime iso={v.since} />; refusals are in the audit trail.
              </p>
              <table data-testid="gateway-calls">
                <thead>
                  <tr>
                    <th scope="col">Server</th>
                    <th scope="col">Tool, prompt or read</th>
                    <th scope="col">Succeeded</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Latest</th>
                    <th scope="col">Its record</th>
                  </tr>
                </thead>
                <tbody>
                  <For
                    each={v.calls}
                    fallback={
                      <tr>
                        <td colspan="6">No call yet.</td>
                      </tr>
                    }
                  >
                    {(c) => (
                      <tr data-call={`${c.upstream}/${c.name}`}>
                        <td>{c.upstream}</td>
                        <td>
                          <code>{c.name}</code>
                        </td>
                        <td class="number">{c.success}</td>
                        <td class={`number ${c.failure > 0 ? 'bad' : ''}`}>{c.failure}</td>
                        <td>
                          <RelativeTime iso={c.lastAt} />
                        </td>
                        <td>
                          <A href={recordHref(c.lastTraceId)}>{c.lastTraceId}</A>
                        </td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </section>
            <section aria-labelledby="recent-title">
              <h2 id="recent-title">Latest calls</h2>
              <Show when={v.recent.length > 0} fallback={<p>No call yet.</p>}>
                <table data-testid="gateway-recent">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Server</th>
                      <th scope="col">Call</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Trace</th>
                    </tr>
                  </thead>
                  <tbody>
                    <For each={v.recent}>
                      {(r) => (
                        <tr data-trace={r.traceId}>
                          <td>
                            <RelativeTime iso={r.at} />
                          </td>
                          <td>{r.upstream}</td>
                          <td>
                            <code>{r.name}</code>
                          </td>
                          <td class={r.outcome === 'success' ? 'ok' : 'bad'}>{r.outcome}</td>
                          <td>
                            <A href={recordHref(r.traceId)}>{r.traceId}</A>
                          </td>
                        </tr>
                      )}
                    </For>
                  </tbody>
                </table>
              </Show>
            </section>
          </>
        )}
      </Loaded>
    </section>
  );
}
