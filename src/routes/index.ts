import type { Api } from '../http/api';
import type { Runtime } from '../runtime';
import { graphRoutes } from './graph';
import { healthRoutes } from './health';
import { lineageRoutes } from './lineage';
import { workspaceStatsRoutes } from './workspaces/stats';

/** Every resource's routes. Health probes answer at the root and under the API prefix. */
export function registerRoutes(api: { root: Api; v1: Api }, rt: Runtime): void {
  healthRoutes(api.root, rt);
  graphRoutes(api.v1, rt);
  lineageRoutes(api.v1, rt);
  workspaceStatsRoutes(api.v1, rt);
}
