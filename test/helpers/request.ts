/** Request options of the test clients: `json` is sent as the body, `workspace` overrides the default workspace. */
export type TestRequestInit = RequestInit & { json?: unknown; workspace?: string };

/** fetch against `url` with the X-Workspace-ID header set (the given default unless the call names another). */
export function workspaceRequest(url: string, workspace: string) {
  return (path: string, init: TestRequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('X-Workspace-ID', init.workspace ?? workspace);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(url + path, { ...init, headers, body });
  };
}
