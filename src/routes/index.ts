import type { Api } from '../http/api';
import type { Runtime } from '../runtime';
import { healthRoutes } from './health';

/** Every resource's routes. Health probes answer at the root and under the API prefix. */
export function registerRoutes(api: { root: Api; v1: Api }, rt: Runtime): void {
  healthRoutes(api.root, rt);
}
