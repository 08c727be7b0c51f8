// CPU time per process group during a benchmark phase, from /proc (Linux): where a paid call's CPU goes
// on a machine whose cores are shared by the service, PostgreSQL, Redis, the provider and the load
// generator. Elsewhere (no /proc) it reports nothing.
import { readdirSync, readFileSync } from 'node:fs';

export type CpuGroup = 'service' | 'postgres' | 'redis' | 'provider' | 'load generator';

export interface CpuSnapshot {
  /** Per process: its group and CPU seconds so far (user + system, and the system part). */
  procs: Map<number, { group: CpuGroup; seconds: number; system: number }>;
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  seconds: number;
  system: number;
}

function readProcs(): Proc[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const procs: Proc[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // comm is in parentheses and may contain spaces: fields after it are counted from the last ')'.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const f = stat.slice(close + 2).split(' ');
      // After comm: state(0) ppid(1) ... utime(11) stime(12).
      procs.push({
        pid: Number(pid),
        ppid: Number(f[1]),
        comm,
        // Our own process also counts its children that have exited (pgbench): cutime(13), cstime(14).
        seconds:
          (Number(f[11]) +
            Number(f[12]) +
            (Number(pid) === process.pid ? Number(f[13]) + Number(f[14]) : 0)) /
          TICKS_PER_SECOND,
        system: (Number(f[12]) + (Number(pid) === process.pid ? Number(f[14]) : 0)) / TICKS_PER_SECOND,
      });
    } catch {
      // The process exited between the listing and the read.
    }
  }
  return procs;
}

/** The CPU time used so far by each group: the service's process tree, the provider's, PostgreSQL, Redis, us. */
export function cpuSnapshot(
  servicePid: number,
  providerPid = -1,
  ourPostgres: (pid: number) => boolean = () => true,
): CpuSnapshot {
  const procs = readProcs();
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const tree = (root: number) => {
    const out = new Set<number>([root]);
    const stack = [root];
    while (stack.length > 0) {
      for (const c of children.get(stack.pop() as number) ?? []) {
        out.add(c);
        stack.push(c);
      }
    }
    return out;
  };
  const service = tree(servicePid);
  const provider = tree(providerPid);
  const out: CpuSnapshot['procs'] = new Map();
  for (const p of procs) {
    const group: CpuGroup | undefined = service.has(p.pid)
      ? 'service'
      : provider.has(p.pid)
        ? 'provider'
        : p.pid === process.pid
          ? 'load generator'
          : p.comm === 'postgres' && ourPostgres(p.pid)
            ? 'postgres'
            : p.comm.startsWith('redis-server')
              ? 'redis'
              : undefined;
    if (group) out.set(p.pid, { group, seconds: p.seconds, system: p.system });
  }
  return { procs: out };
}

/**
 * "service 412 (sys 150), postgres 230 (sys 40), …": µs of CPU per call between two snapshots. Processes
 * that exited in between are left out (other sessions' PostgreSQL backends; their CPU is not ours).
 */
export function cpuPerCall(
  a: CpuSnapshot,
  b: CpuSnapshot,
  calls: number,
): { text: string; service: number; postgres: number; total: number } {
  if (calls <= 0 || b.procs.size === 0)
    return { text: 'n/a', service: Number.NaN, postgres: Number.NaN, total: Number.NaN };
  const seconds = new Map<CpuGroup, number>();
  const system = new Map<CpuGroup, number>();
  for (const [pid, p] of b.procs) {
    // A process that started during the phase counts from zero.
    const before = a.procs.get(pid);
    seconds.set(p.group, (seconds.get(p.group) ?? 0) + p.seconds - (before?.seconds ?? 0));
    system.set(p.group, (system.get(p.group) ?? 0) + p.system - (before?.system ?? 0));
  }
  const groups: CpuGroup[] = ['service', 'postgres', 'redis', 'provider', 'load generator'];
  let total = 0;
  const parts = groups.map((g) => {
    const us = ((seconds.get(g) ?? 0) * 1e6) / calls;
    total += us;
    return `${g} ${us.toFixed(0)} (sys ${(((system.get(g) ?? 0) * 1e6) / calls).toFixed(0)})`;
  });
  return {
    text: `${parts.join(', ')}; total ${total.toFixed(0)} µs`,
    service: ((seconds.get('service') ?? 0) * 1e6) / calls,
    postgres: ((seconds.get('postgres') ?? 0) * 1e6) / calls,
    total,
  };
}

/**
 * Polls snapshots while a phase runs, so that processes which start and exit inside it (pgbench's
 * PostgreSQL backends) are counted up to their last reading. `stop()` gives the CPU used in the phase.
 */
export function trackCpu(
  servicePid: number,
  providerPid = -1,
  ourPostgres: (pid: number) => boolean = () => true,
  everyMs = 200,
) {
  const first = cpuSnapshot(servicePid, providerPid, ourPostgres);
  const last: CpuSnapshot = { procs: new Map(first.procs) };
  const poll = () => {
    for (const [pid, p] of cpuSnapshot(servicePid, providerPid, ourPostgres).procs) last.procs.set(pid, p);
  };
  const timer = setInterval(poll, everyMs);
  return {
    stop(): { before: CpuSnapshot; after: CpuSnapshot } {
      clearInterval(timer);
      poll();
      return { before: first, after: last };
    },
  };
}
