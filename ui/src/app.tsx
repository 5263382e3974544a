import { lazy, Suspense, useEffect } from 'react';
import { useSession } from './api/session';
import { ThemeSwitch } from './components/theme';
import { Link, matchPath, useLocation, useNavigate } from './router';
import { ExecutionsView } from './views/executions';
import { QueuesView } from './views/queues';
import { SignInView } from './views/sign-in';

// Views with the JSON editor (CodeMirror) or the diagram (React Flow) load on first visit, in their
// own chunks: the first page, the executions list, needs neither.
const ExecutionView = lazy(() => import('./views/execution').then((m) => ({ default: m.ExecutionView })));
const DefinitionsView = lazy(() => import('./views/definitions').then((m) => ({ default: m.DefinitionsView })));
const WorkflowDefEditor = lazy(() => import('./views/definitions').then((m) => ({ default: m.WorkflowDefEditor })));
const TaskDefEditor = lazy(() => import('./views/definitions').then((m) => ({ default: m.TaskDefEditor })));
const StartWorkflowView = lazy(() => import('./views/start-workflow').then((m) => ({ default: m.StartWorkflowView })));
const HumanInboxView = lazy(() => import('./views/human-inbox').then((m) => ({ default: m.HumanInboxView })));
const EventHandlersView = lazy(() => import('./views/event-handlers').then((m) => ({ default: m.EventHandlersView })));
// The overview draws with chart.js: it loads on first visit too.
const OverviewView = lazy(() => import('./views/overview').then((m) => ({ default: m.OverviewView })));
const BatchesView = lazy(() => import('./views/batches').then((m) => ({ default: m.BatchesView })));
const BatchView = lazy(() => import('./views/batches').then((m) => ({ default: m.BatchView })));
const EventHandlerEditor = lazy(() => import('./views/event-handlers').then((m) => ({ default: m.EventHandlerEditor })));
// Admins only: the access page and its custom roles load on first visit.
const AccessView = lazy(() => import('./views/access').then((m) => ({ default: m.AccessView })));

const NAV: Array<[string, string]> = [
  ['/overview', 'Overview'],
  ['/executions', 'Executions'],
  ['/definitions', 'Definitions'],
  ['/human', 'Human tasks'],
  ['/queues', 'Queues'],
  ['/events', 'Event handlers'],
  ['/batches', 'Batches'],
];

function View() {
  const { path } = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    if (path === '/' || path === '') navigate('/executions', true);
  }, [path, navigate]);
  let m: Record<string, string> | undefined;
  if (matchPath('/overview', path)) return <OverviewView />;
  if (matchPath('/executions', path)) return <ExecutionsView />;
  if ((m = matchPath('/executions/:id', path))) return <ExecutionView key={m.id} id={m.id!} />;
  if (matchPath('/definitions', path)) return <DefinitionsView />;
  if (matchPath('/definitions/workflow/new', path)) return <WorkflowDefEditor key="new" />;
  if ((m = matchPath('/definitions/workflow/:name', path))) return <WorkflowDefEditor key={m.name} name={m.name} />;
  if (matchPath('/definitions/task/new', path)) return <TaskDefEditor key="new" />;
  if ((m = matchPath('/definitions/task/:name', path))) return <TaskDefEditor key={m.name} name={m.name} />;
  if (matchPath('/start', path)) return <StartWorkflowView />;
  if (matchPath('/human', path)) return <HumanInboxView />;
  if (matchPath('/queues', path)) return <QueuesView />;
  if (matchPath('/access', path)) return <AccessView />;
  if (matchPath('/events', path)) return <EventHandlersView />;
  if (matchPath('/batches', path)) return <BatchesView />;
  if ((m = matchPath('/batches/:id', path))) return <BatchView key={m.id} id={m.id!} />;
  if (matchPath('/events/new', path)) return <EventHandlerEditor key="new" />;
  if ((m = matchPath('/events/:name', path))) return <EventHandlerEditor key={m.name} name={m.name} />;
  return (
    <p>
      No such page. <Link to="/executions">Executions</Link>
    </p>
  );
}

export function App() {
  const session = useSession();
  const { path } = useLocation();
  return (
    <div className="shell">
      <header className="topbar">
        <Link to="/executions" className="brand">
          Baton
        </Link>
        {session.signedIn && (
          <nav className="nav" aria-label="Main">
            {[...NAV, ...(session.can('admin') ? [['/access', 'Access'] as [string, string]] : [])].map(([to, label]) => (
              <Link key={to} to={to} aria-current={path === to || path.startsWith(`${to}/`) ? 'page' : undefined}>
                {label}
              </Link>
            ))}
          </nav>
        )}
        <span className="spacer" />
        {session.authOn && session.signedIn && (
          <span className="who" data-testid="who">
            {session.name} ({session.roles.join(', ')}){' '}
            <button type="button" onClick={session.signOut}>
              Sign out
            </button>
          </span>
        )}
        <ThemeSwitch />
      </header>
      <main>
        {session.authOn === undefined ? (
          <p className="muted">Connecting…</p>
        ) : session.signedIn ? (
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <View />
          </Suspense>
        ) : (
          <SignInView />
        )}
      </main>
    </div>
  );
}
