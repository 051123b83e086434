import { createResource, Show, type JSX } from 'solid-js';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { Loaded } from '../Loaded';
import { mayCall, when, type Capabilities } from './capabilities';
import { MintNarrower } from './MintNarrower';
import { MintWithAdminKey } from './MintWithAdminKey';
import { RevokePanel } from './RevokePanel';
import { ValidatePanel } from './ValidatePanel';
import { RevocationsPanel } from './RevocationsPanel';
import './tokens.css';

/**
 * `#/tokens`: mint (narrower with the pasted token, anything with the admin key), revoke, validate,
 * and revocations as they happen. What the pasted token may do comes from the token listener's own
 * `GET /capabilities`, not from decoding the token here.
 */
export function Tokens() {
  const [caps] = createResource(token, () => apiOf<Capabilities>('token', '/capabilities'));
  return (
    <section aria-labelledby="tokens-title" class="tokens">
      <h1 id="tokens-title">Tokens and revocation</h1>
      <Loaded result={caps.latest} what="this token's capabilities on the token service">
        {(c) => (
          <>
            <p data-testid="your-token">
              Your token: <strong>{c.sub}</strong>, scope <code>{c.scope.join(' ') || 'none'}</code>, expires {when(c.exp)}.
            </p>
            <div class="token-grid">
              <section aria-labelledby="mint-title">
                <h2 id="mint-title">Mint a token</h2>
                <Allowed may={mayCall(c, 'POST', '/auth/token')} what="mint tokens" scope="auth:token:create">
                  <MintNarrower caps={c} />
                </Allowed>
              </section>
              <section>
                <Allowed may={mayCall(c, 'POST', '/auth/token/revoke')} what="revoke tokens" scope="auth:token:revoke">
                  <RevokePanel />
                </Allowed>
                <Allowed may={mayCall(c, 'POST', '/auth/token/validate')} what="validate tokens" scope="auth:token:validate">
                  <ValidatePanel />
                </Allowed>
              </section>
            </div>
            <RevocationsPanel receives={mayCall(c, 'POST', '/auth/token/revoke')} />
          </>
        )}
      </Loaded>
      <MintWithAdminKey />
    </section>
  );
}

function Allowed(props: { may: boolean; what: string; scope: string; children: JSX.Element }) {
  return (
    <Show
      when={props.may}
      fallback={
        <p class="not-permitted" role="status">
          Not permitted: this token cannot {props.what} (it does not grant {props.scope}).
        </p>
      }
    >
      {props.children}
    </Show>
  );
}
