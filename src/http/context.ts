import type { ParameterizedContext } from 'koa';
import type { Scope } from '../domain/types';

export interface AppState {
  requestId: string;
  scope: Scope;
}

export type AppContext = ParameterizedContext<AppState>;
