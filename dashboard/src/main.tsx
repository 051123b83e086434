import { render } from 'solid-js/web';
import { HashRouter, Route } from '@solidjs/router';
import { Layout } from './Layout';
import { Overview } from './views/Overview';
import { Chain } from './views/Chain';
import { RecordView } from './views/Record';
import { Verifier } from './views/Verifier';
import './style.css';

// Hash routes: every view and record has a link that can be shared, and the edge serves one page.
render(() => (
  <HashRouter root={Layout}>
    <Route path="/" component={Overview} />
    <Route path="/chain" component={Chain} />
    <Route path="/records/:id" component={RecordView} />
    <Route path="/verify" component={Verifier} />
  </HashRouter>
), document.getElementById('root')!);
