import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { pinApart, processCpuMs } from './pin';

const hasTaskset = spawnSync('taskset', ['-p', String(process.pid)]).status === 0;
/** The CPU list `taskset -c -p` reports for a process ("0", "1", "0,1", "0-3"). */
const cpuListOf = (pid: number) =>
  /list:\s*(\S+)/.exec(spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' }).stdout)?.[1];

describe('bench/lib/pin', () => {
  it.skipIf(!hasTaskset || os.cpus().length < 2)(
    'puts this process on the first CPU and the server on the second, and gives this process every CPU back',
    async () => {
      const before = cpuListOf(process.pid);
      const server = spawn('sleep', ['30']);
      try {
        const undo = pinApart([server.pid ?? 0]);
        expect(undo).not.toBeNull();
        expect(cpuListOf(process.pid)).toBe('0');
        expect(cpuListOf(server.pid ?? 0)).toBe('1');
        undo?.();
        expect(cpuListOf(process.pid)).toBe(before);
      } finally {
        server.kill();
      }
    },
  );

  it.skipIf(process.platform !== 'linux')('reads a process’s CPU time, which grows as it works', () => {
    const start = processCpuMs(process.pid) ?? NaN;
    const until = Date.now() + 120;
    let spin = 0;
    while (Date.now() < until) spin += Math.sqrt(spin + 1);
    expect(spin).toBeGreaterThan(0);
    expect(processCpuMs(process.pid)).toBeGreaterThan(start);
    expect(processCpuMs(2 ** 31)).toBeNull();
  });
});
