import type { Api } from '../http/api';
import type { Runtime } from '../services/runtime';
import { graphRoutes } from './graph';
import { chatRoutes } from './chat';
import { compatRoutes } from './compat';
import { costRoutes } from './costs';
import { tracingSettingsRoutes } from './settings/tracing';
import { conversationRoutes } from './conversations';
import { documentRoutes } from './documents';
import { healthRoutes } from './health';
import { lineageRoutes } from './lineage';
import { pipelineRoutes } from './pipeline';
import { queryRoutes } from './query';
import { taskRoutes } from './tasks';
import { workspaceRoutes } from './workspaces';
import { tenantRoutes } from './tenants';
import { authRoutes } from './accounts/auth';
import { userRoutes } from './accounts/users';
import { apiKeyRoutes } from './accounts/keys';

/** Every resource's routes. Health probes and the compatibility APIs answer at the root. */
export function registerRoutes(api: { root: Api; v1: Api }, rt: Runtime): void {
  healthRoutes(api.root, rt);
  compatRoutes(api.root, rt);
  graphRoutes(api.v1, rt);
  lineageRoutes(api.v1, rt);
  authRoutes(api.v1, rt);
  userRoutes(api.v1, rt);
  apiKeyRoutes(api.v1, rt);
  tenantRoutes(api.v1, rt);
  workspaceRoutes(api.v1, rt);
  queryRoutes(api.v1, rt);
  chatRoutes(api.v1, rt);
  conversationRoutes(api.v1, rt);
  documentRoutes(api.v1, rt);
  taskRoutes(api.v1, rt);
  pipelineRoutes(api.v1, rt);
  costRoutes(api.v1, rt);
  tracingSettingsRoutes(api.v1, rt);
}
