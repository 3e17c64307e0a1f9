import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import { startCommandFlags } from '../../src/server/test/start-command';

export interface ChildServer {
  pid: number;
  url: string;
  /** Resident memory now and its peak since start (Linux /proc VmRSS and VmHWM), MB; null elsewhere. */
  memoryMb(): { rss: number; peak: number } | null;
  stop(): Promise<void>;
  /** SIGKILL, as a crash would: nothing is closed, nothing is flushed. */
  kill(): void;
}

/**
 * Node flags for the server processes: those `npm run start:only` gives the server (package.json), so the bench
 * measures the start command as it is; `BENCH_SERVER_NODE_FLAGS` (e.g. "--optimize-for-size") replaces them, to
 * measure a flag before the start command takes it (issue 19: memory).
 */
const SERVER_NODE_FLAGS =
  process.env.BENCH_SERVER_NODE_FLAGS !== undefined
    ? process.env.BENCH_SERVER_NODE_FLAGS.split(/\s+/).filter(Boolean)
    : startCommandFlags();

/** How the server processes are run, for the report. */
export function describeServerCommand(): string {
  const how =
    process.env.BENCH_SERVER_TSX === '1' ? 'through tsx' : 'bundled, as `npm start` runs the server';
  return `\`node${SERVER_NODE_FLAGS.map((f) => ` ${f}`).join('')}\`, ${how}`;
}

/**
 * bench/serve.ts bundled the way `npm start` runs the server (scripts/build-server.mjs: plain Node, no tsx
 * loader in the process), once per bench run; `BENCH_SERVER_TSX=1` runs it through tsx instead.
 */
let bundled = false;
function serverEntry(): string[] {
  if (process.env.BENCH_SERVER_TSX === '1') return ['--import', 'tsx', 'bench/serve.ts'];
  const file = 'dist/bench/serve.mjs';
  if (!bundled) {
    const built = spawnSync(process.execPath, ['scripts/build-server.mjs', 'bench/serve.ts', file], {
      stdio: 'inherit',
    });
    if (built.status !== 0) throw new Error('could not bundle bench/serve.ts (scripts/build-server.mjs)');
    bundled = true;
  }
  return [file];
}

/**
 * Starts `bench/serve.ts <args>` as its own Node process (node directly, so the pid is the server's own);
 * `extraNodeFlags` go after the start command's (`--cpu-prof` for bench/first-visit-waterfall.ts).
 */
export async function spawnServer(
  args: string[],
  { timeoutMs = 180_000, extraNodeFlags = [] }: { timeoutMs?: number; extraNodeFlags?: string[] } = {},
): Promise<ChildServer> {
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...extraNodeFlags, ...serverEntry(), ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the server process');
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server process did not start within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const match = /^READY (\d+)$/.exec(line.trim());
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited with ${code} before it was ready`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid,
    url: `http://127.0.0.1:${port}`,
    memoryMb() {
      try {
        const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
        const peak = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
        return { rss: rss / 1024, peak: peak / 1024 };
      } catch {
        return null;
      }
    },
    kill() {
      child.kill('SIGKILL');
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
