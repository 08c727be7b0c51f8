#!/usr/bin/env node
// Command-line entry: `svc start | migrate | admin ...` (see src/cli.ts).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
