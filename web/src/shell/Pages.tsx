import { lazy, type ReactNode, Suspense } from 'react';
import type { Workspace } from '../api/pending';
import { currentWorkspace } from '../api/session';
import { Empty, Spinner } from '../ui/feedback';
import { Link } from '../ui/Link';
import { navigate } from './router';
import type { ServerInfo } from './server';

// Each page is its own chunk: the graph libraries load with the explorer, the chart library with its pages.
const GraphPage = lazy(() => import('../graph/GraphPage').then((m) => ({ default: m.GraphPage })));
const QueryPage = lazy(() => import('../query/QueryPage').then((m) => ({ default: m.QueryPage })));
const ChatPage = lazy(() => import('../query/ChatPage').then((m) => ({ default: m.ChatPage })));
const DocumentsPage = lazy(() => import('../documents/DocumentsPage').then((m) => ({ default: m.DocumentsPage })));
const DocumentDetailPage = lazy(() => import('../documents/DocumentDetailPage').then((m) => ({ default: m.DocumentDetailPage })));
const TasksPage = lazy(() => import('../tasks/TasksPage').then((m) => ({ default: m.TasksPage })));
const WorkspacePage = lazy(() => import('../workspace/WorkspacePage').then((m) => ({ default: m.WorkspacePage })));
const ReviewPage = lazy(() => import('../resolution/ReviewPage').then((m) => ({ default: m.ReviewPage })));
const CostsPage = lazy(() => import('../costs/CostsPage').then((m) => ({ default: m.CostsPage })));

interface Props {
  path: string;
  info: ServerInfo;
  workspaces: Workspace[] | null;
  onWorkspacesChanged: () => void;
}

/** The page for a path. */
export function Pages(props: Props) {
  return (
    <Suspense fallback={<Spinner label="Loading…" />}>
      <Page {...props} />
    </Suspense>
  );
}

function Page({ path, info, workspaces, onWorkspacesChanged }: Props) {
  if (path === '/' || path === '') {
    queueMicrotask(() => navigate('/graph', { replace: true }));
    return null;
  }
  if (path === '/graph') return titled('Graph explorer', <GraphPage key={graphKey()} />);
  if (path === '/query') return titled('Query', <QueryPage />);
  if (path === '/chat') return titled('Chat', <ChatPage />);
  if (path === '/documents') return <DocumentsPage workspaceId={currentWorkspace() ?? info.health.workspace_id} />;
  const doc = /^\/documents\/([^/]+)$/.exec(path);
  if (doc) return <DocumentDetailPage id={decodeURIComponent(doc[1])} />;
  if (path === '/tasks') return <TasksPage />;
  if (path === '/review') return <ReviewPage />;
  if (path === '/workspace') return <WorkspacePage info={info} workspaces={workspaces} onWorkspacesChanged={onWorkspacesChanged} />;
  if (path === '/costs') return titled('Costs', <CostsPage />);
  return titled(
    'No such page',
    <Empty title="No such page">
      <Link href="/graph">Open the graph explorer</Link>
    </Empty>,
  );
}

/** The graph page starts over when another entity or another highlight is asked for. */
function graphKey(): string {
  const query = new URLSearchParams(location.search);
  return `${query.get('start') ?? ''}\u0000${query.get('highlight') ?? ''}`;
}

/** Pages whose layout has no room for a visible title still name themselves to screen readers with an h1. */
function titled(title: string, page: ReactNode) {
  return (
    <>
      <h1 className="visually-hidden">{title}</h1>
      {page}
    </>
  );
}
