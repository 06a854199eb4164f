/** Request options of the test clients: `json` is sent as the body, `workspace` overrides the default workspace. */
export type TestRequestInit = RequestInit & { json?: unknown; workspace?: string };

/**
 * fetch against `url` with the credential headers and X-Workspace-ID set (the given default unless the call names
 * another). A call that sends credentials of its own (X-API-Key or Authorization) sends only those.
 */
export function workspaceRequest(url: string, workspace: string, credentials: Record<string, string> = {}) {
  return (path: string, init: TestRequestInit = {}): Promise<Response> => {
    const own = new Headers(init.headers);
    const headers = new Headers(own.has('X-API-Key') || own.has('Authorization') ? {} : credentials);
    own.forEach((value, name) => headers.set(name, value));
    headers.set('X-Workspace-ID', init.workspace ?? workspace);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(url + path, { ...init, headers, body });
  };
}
