import { seedKnowledgeBase } from '../unit/retrieval-fixtures';
import { startTestApp, type TestApp } from './app';

/** A test app whose workspace already holds the retrieval knowledge base (entities, relationships, chunks). */
export async function startSeededApp(env: Record<string, string> = {}): Promise<TestApp> {
  const app = await startTestApp(env);
  await seedKnowledgeBase(app.rt.stores, { workspaceId: app.workspace });
  return app;
}
