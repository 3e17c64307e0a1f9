import os from 'node:os';

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  os: string;
  loadAtStart: number[];
}

/** What the figures were measured on: they only compare within one run on one machine. */
export function describeMachine(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    loadAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The command that produced the results, with the BENCH_* settings that were set. */
export function describeCommand(argv: string[]): string {
  const env = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_') || k === 'CHROMIUM_PATH')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  return [...env, 'npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ');
}
