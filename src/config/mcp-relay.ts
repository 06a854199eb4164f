/** What the `kgrag-mcp` stdio relay reads from its environment: the service to relay to and how to call it. */
export interface McpRelayConfig {
  /** The service's base URL, without a trailing slash (KGRAG_URL, default http://127.0.0.1:8080). */
  baseUrl: string;
  /** Headers of every relayed request: KGRAG_API_KEY, KGRAG_TOKEN (Bearer), KGRAG_WORKSPACE (id or slug), KGRAG_TENANT. */
  headers: Record<string, string>;
}

export function loadMcpRelayConfig(env: Record<string, string | undefined> = process.env): McpRelayConfig {
  const headers: Record<string, string> = {};
  if (env.KGRAG_API_KEY) headers['X-API-Key'] = env.KGRAG_API_KEY;
  if (env.KGRAG_TOKEN) headers.Authorization = `Bearer ${env.KGRAG_TOKEN}`;
  if (env.KGRAG_WORKSPACE) headers['X-Workspace-ID'] = env.KGRAG_WORKSPACE;
  if (env.KGRAG_TENANT) headers['X-Tenant-ID'] = env.KGRAG_TENANT;
  return { baseUrl: (env.KGRAG_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''), headers };
}
