// `svc` command line. Admin sub-commands call the same service functions as the admin API.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminCommands, runningService, runOverApi } from './cli-admin.js';
import { EXIT, runUserCommand, userCommands, userCommandsHelp } from './cli-user.js';
import { ConfigError, loadCliConfig, loadConfig } from './config.js';
import { openDatabase } from './db/index.js';
import { migrate } from './db/migrate.js';
import { closeDeps, createDeps, loadSecrets } from './deps.js';
import { startProgress } from './lib/progress.js';
import { runDepositCli } from './modules/deposits/index.js';
import { subscribeModules } from './wiring.js';

function formatCommand(c: { usage: string; summary: string }): string {
  const head = `  admin ${c.usage}`;
  return head.length < 33 ? `${head.padEnd(33)}${c.summary}` : `${head}\n${' '.repeat(33)}${c.summary}`;
}

const USAGE = `usage: svc <command> [--help]

Your account, over HTTP (SVC_URL, default http://127.0.0.1:8080; --json on each):
${userCommandsHelp()}

Running the service (on this machine):
  start                      run the service (same as npm start)
  mcp                        MCP server on stdio for desktop agents, relaying to SVC_URL with SVC_API_KEY
  migrate                    apply database migrations and exit
  deposit --amount <usdc>    devnet: fund the account of SVC_API_KEY (or --api-key) with a real on-chain
                             USDC deposit (faucet, link, transfer, submit); --url, --wallet-file
  admin token                print the admin token
${adminCommands.map(formatCommand).join('\n')}

Exit codes: 0 ok, 1 refused or failed, 2 usage error, 3 authentication, 4 payment (402), 5 service unreachable.
`;

const SERVICE_HELP: Record<string, string> = {
  start:
    'usage: svc start\n\nRun the service (same as npm start); configured by the environment (see README).',
  migrate: 'usage: svc migrate\n\nApply database migrations and exit.',
  mcp: 'usage: svc mcp\n\nMCP server on stdio for desktop agents, relaying to SVC_URL with SVC_API_KEY (docs/mcp.md).',
  deposit:
    'usage: svc deposit --amount <usdc> [--api-key K] [--url U] [--wallet-file F] [--json]\n\nDevnet: fund the account with a real on-chain USDC deposit (faucet, link, transfer, submit; docs/deposits.md).\nThe service is --url, else SVC_URL, else SVC_PUBLIC_URL. While it waits for confirmations a progress\nindicator runs on stderr (a terminal only, never with --json).',
  token: 'usage: svc admin token\n\nPrint the admin token.',
};

/** `--help` on a service or admin command: print its help, never run it. */
function serviceHelp(command: string | undefined, sub: string | undefined): number {
  const admin = command === 'admin' ? adminCommands.find((c) => c.name === sub) : undefined;
  if (admin) console.log(`usage: svc admin ${admin.usage}\n\n${admin.summary}`);
  else if (command === 'admin' && sub === 'token') console.log(SERVICE_HELP.token);
  else if (command && command !== 'admin' && SERVICE_HELP[command]) console.log(SERVICE_HELP[command]);
  else console.log(USAGE);
  return EXIT.ok;
}

function unknownCommand(words: string): number {
  console.error(`svc: unknown command: ${words}\n\n${USAGE}`);
  return EXIT.usage;
}

async function main(argv: string[]) {
  const [command, sub, ...rest] = argv;
  // The stdio relay talks to a running service: it needs none of the service's own configuration.
  if (command !== undefined && userCommands.some((c) => c.name === command)) {
    return runUserCommand(command, argv.slice(1));
  }
  const isService =
    command === 'start' || command === 'migrate' || command === 'admin' || command === 'deposit';
  if (command === 'admin' && sub === undefined) return unknownCommand('admin (a sub-command is needed)');
  if (command === 'admin' && sub !== undefined && sub !== 'token' && !sub.startsWith('-')) {
    if (!adminCommands.some((c) => c.name === sub)) return unknownCommand(`admin ${sub}`);
  }
  if (argv.includes('--help') || argv.includes('-h')) return serviceHelp(command, sub);
  if (command === 'mcp') return (await import('./cli-mcp.js')).runMcpCommand();
  if (command !== undefined && command !== 'help' && !isService) return unknownCommand(command);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      return 1;
    }
    throw err;
  }
  switch (command) {
    case 'start':
      await import('./server.js');
      return undefined;
    case 'migrate': {
      const db = await openDatabase({ url: config.databaseUrl, dataDir: `${config.dataDir}/pglite` });
      const applied = await migrate(db);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      await db.close();
      return 0;
    }
    case 'deposit': {
      const { values } = parseArgs({
        args: [sub, ...rest].filter((a): a is string => a !== undefined),
        options: {
          amount: { type: 'string' },
          'api-key': { type: 'string' },
          url: { type: 'string' },
          'wallet-file': { type: 'string' },
          json: { type: 'boolean' },
        },
      });
      if (!values.amount) {
        console.error(USAGE);
        return 2;
      }
      const json = values.json === true;
      // The service to pay into: --url, else SVC_URL like every user command, else this service's own URL.
      const cli = loadCliConfig();
      const deposit = await runDepositCli({
        url: (values.url ?? (cli.urlSet ? cli.url : config.publicUrl)).replace(/\/$/, ''),
        amount: values.amount,
        apiKey: values['api-key'] ?? config.cliApiKey,
        walletFile: values['wallet-file'] ?? path.join(config.dataDir, 'devnet', 'cli-wallet.key'),
        // With --json, stdout carries the deposit only.
        log: (line) => (json ? console.error(line) : console.log(line)),
        waiting: (label) => {
          const p = startProgress(label, { enabled: !json });
          return () => p.stop();
        },
      });
      console.log(JSON.stringify(deposit, null, 2));
      return 0;
    }
    case 'admin': {
      // A running service holds the embedded database: talk to it over its admin API instead.
      const serviceUrl = (process.env.SVC_URL ?? config.publicUrl).replace(/\/$/, '');
      const cmd = adminCommands.find((c) => c.name === sub);
      if (sub === 'token') {
        console.log(loadSecrets(config).adminToken);
        return 0;
      }
      if (cmd && (await runningService(serviceUrl))) {
        const { values } = parseArgs({ args: rest, options: cmd.options, allowPositionals: false });
        const token = loadSecrets(config).adminToken;
        const result = await runOverApi(cmd, values as Record<string, string | undefined>, serviceUrl, token);
        console.log(JSON.stringify(result, null, 2));
        return 0;
      }
      const deps = await createDeps(config);
      subscribeModules(deps);
      try {
        if (!cmd) return unknownCommand(`admin ${sub ?? ''}`.trim());
        const { values } = parseArgs({ args: rest, options: cmd.options, allowPositionals: false });
        const result = await cmd.run(deps, values as Record<string, string | undefined>);
        console.log(JSON.stringify(result, null, 2));
        return 0;
      } finally {
        await closeDeps(deps);
      }
    }
    default:
      console.error(USAGE);
      return command === undefined || command === 'help' ? 0 : 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
