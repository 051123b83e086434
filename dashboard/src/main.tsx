import { render } from 'solid-js/web';
import { HashRouter, Route } from '@solidjs/router';
import { For } from 'solid-js';
import { Layout } from './Layout';
import { ROUTES } from './routes';
import './style.css';

// Hash routes: every view and record has a link that can be shared, and the edge serves one page.
render(
  () => (
    <HashRouter root={Layout}>
      <For each={ROUTES}>{(r) => <Route path={r.path} component={r.component} />}</For>
    </HashRouter>
  ),
  document.getElementById('root')!,
);
