// MCP server (docs/mcp.md): the marketplace as tools an agent can use. Public entry.

export { mcpRoutes } from './routes.js';
export { collectRouteSchemas, type RouteSchemas } from './schemas.js';
export { runStdioBridge } from './stdio.js';
export { TOOLS } from './tools.js';
