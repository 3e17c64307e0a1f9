import fs from 'node:fs';
import path from 'node:path';

/**
 * One data folder, one server: the embedded database and the sandbox state under DATA_DIR are opened by one
 * process only (two PGlite instances on one folder each keep their own state and overwrite each other's).
 * The lock is a file holding the owner's pid; a lock whose process is gone (kill -9, a crash) is stale and
 * taken over.
 */
export const LOCK_FILE = 'ledgerlink.lock';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly since: string | undefined,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another Ledgerlink server (pid ${pid}${since ? `, started ${since}` : ''}); stop it or set DATA_DIR to another folder`,
    );
    this.name = 'DataDirInUseError';
  }
}

interface LockContent {
  pid: number;
  startedAt?: string;
}

function readLock(file: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0
      ? { pid: parsed.pid, startedAt: parsed.startedAt }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a running process that could be a Ledgerlink server (a reused pid of another program is not). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Linux: after a kill -9 the pid may have gone to another program; only a node process can hold the lock.
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
}

/**
 * Takes DATA_DIR's lock or throws DataDirInUseError naming the process that holds it. Returns `release`,
 * also run when the process exits.
 */
export function lockDataDir(dataDir: string): { file: string; release: () => void } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const content = JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() });
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, content, { flag: 'wx', mode: 0o644 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(file);
      if (holder && isAlive(holder.pid)) throw new DataDirInUseError(dataDir, holder.pid, holder.startedAt);
      // Stale (its process is gone) or half-written: move it aside so that one of two starting servers wins.
      const aside = `${file}.stale-${process.pid}`;
      try {
        fs.renameSync(file, aside);
        const moved = readLock(aside);
        // Another server took the stale lock between our read and the move: give its lock back.
        if (moved && moved.pid !== holder?.pid) fs.renameSync(aside, file);
        else fs.rmSync(aside, { force: true });
      } catch {
        // another process moved it first; try again
      }
      continue;
    }
    const release = () => {
      try {
        if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      } catch {
        // nothing to release
      }
    };
    process.once('exit', release);
    return { file, release };
  }
  const holder = readLock(file);
  throw new DataDirInUseError(dataDir, holder?.pid ?? 0, holder?.startedAt);
}
