#!/usr/bin/env node
// Command-line entry: `svc start | migrate | mcp | admin ...` (see src/cli.ts).
import { register } from 'tsx/esm/api';

register();
if (process.argv[2] === 'mcp' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
  // The stdio relay for desktop agents: loads nothing of the service itself, so it starts fast.
  const { runMcpCommand } = await import('../src/cli-mcp.ts');
  process.exitCode = await runMcpCommand();
} else {
  await import('../src/cli.ts');
}
