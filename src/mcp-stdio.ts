#!/usr/bin/env node
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type JSONRPCMessage, isJSONRPCRequest, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { loadMcpRelayConfig } from './config/mcp-relay';

/**
 * `kgrag-mcp`: the MCP server of a running kgrag service, for desktop clients that launch a command and talk MCP over
 * its standard input and output. It relays every message to the service's Streamable HTTP endpoint (KGRAG_URL, /mcp)
 * with the credential of KGRAG_API_KEY (or KGRAG_TOKEN, a Bearer token) and the workspace of KGRAG_WORKSPACE (id or
 * slug), so the tools act on the service's persistent data with the key's role. Diagnostics go to standard error.
 */

const INTERNAL_ERROR = -32603;

function say(line: string): void {
  process.stderr.write(`kgrag-mcp: ${line}\n`);
}

async function main(): Promise<void> {
  const { baseUrl: base, headers } = loadMcpRelayConfig();
  const upstream = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  const local = new StdioServerTransport();

  local.onmessage = (message: JSONRPCMessage) => {
    upstream.send(message).catch((err: Error) => {
      say(`${base}/mcp: ${err.message}`);
      // A request the service could not take gets an answer, so the client shows why instead of waiting.
      if (isJSONRPCRequest(message)) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: INTERNAL_ERROR, message: `kgrag at ${base}: ${err.message}` } });
      }
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    // Later requests carry the protocol version the service agreed to.
    const version = isJSONRPCResultResponse(message) ? (message.result as { protocolVersion?: unknown }).protocolVersion : undefined;
    if (typeof version === 'string') upstream.setProtocolVersion(version);
    void local.send(message);
  };
  upstream.onerror = (err) => say(err.message);
  local.onclose = () => {
    void upstream.terminateSession().finally(() => process.exit(0));
  };
  await upstream.start();
  await local.start();
}

main().catch((err: Error) => {
  say(err.message);
  process.exit(1);
});
