/**
 * State on disk: one JSON file under dataDir, written atomically (temp file + rename) and debounced,
 * so demo work survives a restart without slowing every write.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { STATE_VERSION, type SandboxState } from './state';

export const STATE_FILE = 'sandbox-state.json';

export async function loadState(dataDir: string): Promise<SandboxState | null> {
  try {
    const text = await readFile(path.join(dataDir, STATE_FILE), 'utf8');
    const parsed = JSON.parse(text) as SandboxState;
    if (parsed.version !== STATE_VERSION || !Array.isArray(parsed.orgs) || !parsed.identity) return null;
    return parsed;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    console.warn(`[sandbox] ignoring unreadable state file: ${(error as Error).message}`);
    return null;
  }
}

export async function saveState(dataDir: string, state: SandboxState): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const target = path.join(dataDir, STATE_FILE);
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify(state));
  await rename(tmp, target);
}

/** Debounced, serialised saver: at most one write in flight, the latest state always wins. */
export class StateSaver {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly dataDir: string | null,
    private readonly getState: () => SandboxState,
    private readonly delayMs = 250,
  ) {}

  markDirty(): void {
    if (!this.dataDir) return;
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.delayMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const dataDir = this.dataDir;
    if (!dataDir || !this.dirty) return this.writing;
    this.dirty = false;
    this.writing = this.writing
      .then(() => saveState(dataDir, this.getState()))
      .catch((error: unknown) => {
        console.warn(`[sandbox] could not save state: ${(error as Error).message}`);
      });
    return this.writing;
  }
}
