import type { Workspace } from '../api/pending';
import { CostsPage } from '../costs/CostsPage';
import { DocumentDetailPage } from '../documents/DocumentDetailPage';
import { DocumentsPage } from '../documents/DocumentsPage';
import { GraphPage } from '../graph/GraphPage';
import { ChatPage } from '../query/ChatPage';
import { QueryPage } from '../query/QueryPage';
import { TasksPage } from '../tasks/TasksPage';
import { Empty } from '../ui/feedback';
import { Link } from '../ui/Link';
import { WorkspacePage } from '../workspace/WorkspacePage';
import { navigate } from './router';
import type { ServerInfo } from './server';

interface Props {
  path: string;
  info: ServerInfo;
  workspaces: Workspace[] | null;
  onWorkspacesChanged: () => void;
}

/** The page for a path. */
export function Pages({ path, info, workspaces, onWorkspacesChanged }: Props) {
  if (path === '/' || path === '') {
    queueMicrotask(() => navigate('/graph', { replace: true }));
    return null;
  }
  if (path === '/graph') return <GraphPage />;
  if (path === '/query') return <QueryPage />;
  if (path === '/chat') return <ChatPage />;
  if (path === '/documents') return <DocumentsPage />;
  const doc = /^\/documents\/([^/]+)$/.exec(path);
  if (doc) return <DocumentDetailPage id={decodeURIComponent(doc[1])} />;
  if (path === '/tasks') return <TasksPage />;
  if (path === '/workspace') return <WorkspacePage info={info} workspaces={workspaces} onWorkspacesChanged={onWorkspacesChanged} />;
  if (path === '/costs') return <CostsPage />;
  return (
    <Empty title="No such page">
      <Link href="/graph">Open the graph explorer</Link>
    </Empty>
  );
}
