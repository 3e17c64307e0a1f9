import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (`getconf CLK_TCK`). */
const CLOCK_TICKS = 100;

/**
 * Puts the load generator and the measured server on CPUs of their own for a rate measurement: this process (where
 * autocannon runs) on the first CPU, each server, every thread of it, on the second. On two shared cores the
 * scheduler otherwise decides how much of a CPU each side gets, and a rate ratio measured unpinned swung from 0.23
 * to 1.03 between two quiet quick runs of the same code (bench/results.md §6, stop 51). Linux's `taskset`
 * (util-linux); answers null, changing nothing, where it or a second CPU is missing. The answer undoes this
 * process's pin (the servers are stopped after the measurement).
 */
export function pinApart(serverPids: number[]): (() => void) | null {
  const cpus = os.cpus().length;
  if (cpus < 2) return null;
  const taskset = (args: string[]) => spawnSync('taskset', args, { stdio: 'ignore' }).status === 0;
  if (!taskset(['-a', '-p', '-c', '0', String(process.pid)])) return null;
  const servers = serverPids.every((pid) => taskset(['-a', '-p', '-c', '1', String(pid)]));
  const undo = () => void taskset(['-a', '-p', '-c', `0-${cpus - 1}`, String(process.pid)]);
  if (!servers) {
    undo();
    return null;
  }
  return undo;
}

/** CPU time a process has used so far, every thread of it (Linux /proc/<pid>/stat utime + stime), in ms; null elsewhere. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS : null;
  } catch {
    return null;
  }
}
