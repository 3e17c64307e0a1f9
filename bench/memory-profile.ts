/**
 * Where the server's memory goes in the bench's memory scenario (bench/parts/server.ts, measureMemory):
 * `BENCH_MEM_ORGS` × `BENCH_MEM_INVOICES` cached invoices written into a PGlite on disk, then a fresh server
 * process (this file in `child` mode) loaded with every organisation's GET /api/xero/invoices, 10 connections.
 * The child samples itself every 100 ms and reports, at idle and at its highest RSS: /proc VmRSS and VmHWM,
 * process.memoryUsage() (heapUsed, external, arrayBuffers), V8's heap spaces, and PGlite's WebAssembly memory
 * (its size, and how much of it is resident, from /proc/self/smaps).
 *
 *   node --import tsx bench/memory-profile.ts                 the breakdown (one run)
 *   MEMPROF_SNAPSHOTS=1 …                                     also heap snapshots at idle and after the load,
 *                                                             kept under bench/.tmp/, with their top retainers
 *   MEMPROF_NODE_FLAGS="--max-semi-space-size=4" …            Node flags for the server process
 *   MEMPROF_SECONDS=10 MEMPROF_RUNS=2 BENCH_MEM_ORGS=10 BENCH_MEM_INVOICES=10000   (the defaults)
 *   node --max-old-space-size=8192 --import tsx bench/memory-profile.ts analyse <file.heapsnapshot>
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import v8 from 'node:v8';
import autocannon from 'autocannon';
import { PGlite } from '@electric-sql/pglite';
import {
  ApiClient,
  makeTempDir,
  openBenchDatabase,
  signIn,
  startBenchApp,
  startBenchSandbox,
  TMP_ROOT,
} from './lib/harness';
import { insertCachedOrganization, insertOutstandingInvoices, markSalesOpenSynced } from './lib/synthetic';

const MB = 1024 * 1024;

interface Sample {
  atMs: number;
  rssMb: number;
  peakMb: number;
  /** Resident anonymous memory (heap, WebAssembly, buffers), and file-backed (code, mapped files). */
  anonMb: number;
  fileMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** PGlite's WebAssembly memory: its size (never shrinks) and the part of it resident. */
  wasmSizeMb: number;
  wasmResidentMb: number | null;
  /** Other read-write anonymous mappings of 64 MB or more, resident. */
  otherLargeMb: number;
  /** Read-write anonymous mappings with 8 MB or more resident: "size/resident" MB. */
  mappings: string[];
  spaces: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------------------
// The server process

/** A "Key:   123 kB" line of /proc/self/status or smaps, in kB (NaN when absent). */
function readKb(text: string, key: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${key}:`));
  return line ? Number(/(\d+) kB/.exec(line)?.[1] ?? NaN) : NaN;
}

function readStatus(): { rss: number; peak: number; anon: number; file: number } {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (key: string) => readKb(status, key) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

/**
 * The resident part of the mapping that holds the WebAssembly memory (V8 maps it read-write at exactly its
 * size, inside a reservation of several GB), and of the other large read-write anonymous mappings (64 MB
 * and more: another WebAssembly memory, a big malloc arena).
 */
function residentMappings(wasmBytes: number): { wasm: number | null; otherLarge: number; list: string[] } {
  try {
    const smaps = fs.readFileSync('/proc/self/smaps', 'utf8');
    let wasm: number | null = null;
    let otherLarge = 0;
    const list: string[] = [];
    const byPerms: Record<string, number> = {};
    for (const block of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
      const head = block.slice(0, block.indexOf('\n'));
      const kb = (key: string) => readKb(block, key) || 0;
      const anonymous = / 00:00 0\s*$/.test(head);
      const perms = head.split(' ')[1] ?? '';
      if (anonymous) byPerms[perms] = (byPerms[perms] ?? 0) + kb('Rss') / 1024;
      if (!anonymous || perms !== 'rw-p') continue;
      const isWasm = wasm === null && wasmBytes > 0 && kb('Size') * 1024 === wasmBytes;
      if (isWasm) wasm = kb('Rss') / 1024;
      else if (kb('Size') >= 64 * 1024) otherLarge += kb('Rss') / 1024;
      if (kb('Rss') >= 8 * 1024)
        list.push(
          `${isWasm ? 'wasm ' : ''}${(kb('Size') / 1024).toFixed(0)}/${(kb('Rss') / 1024).toFixed(0)}`,
        );
    }
    for (const [perms, mb] of Object.entries(byPerms))
      if (perms !== 'rw-p' && mb >= 1) list.push(`all ${perms} ${mb.toFixed(0)}`);
    return { wasm, otherLarge, list };
  } catch {
    return { wasm: null, otherLarge: 0, list: [] };
  }
}

async function runChild(spec: { dataDir: string; sandboxUrl: string }): Promise<void> {
  // V8 flags set at run time, before the app starts (what the server could do for itself).
  for (const flag of (process.env.MEMPROF_RUNTIME_FLAGS ?? '').split(/\s+/).filter(Boolean))
    v8.setFlagsFromString(flag);
  // The app opens PGlite itself: keep hold of the instance to read its WebAssembly memory.
  let pglite: PGlite | null = null;
  const create = PGlite.create.bind(PGlite);
  (PGlite as unknown as { create: typeof create }).create = (async (...args: Parameters<typeof create>) => {
    const instance = await create(...args);
    pglite = instance;
    return instance;
  }) as typeof create;
  const wasmBytes = () => {
    const mod = (pglite as unknown as { mod?: { wasmMemory?: WebAssembly.Memory } } | null)?.mod;
    return mod?.wasmMemory?.buffer.byteLength ?? 0;
  };
  const sample = (): Sample => {
    const status = readStatus();
    const usage = process.memoryUsage();
    const mappings = residentMappings(wasmBytes());
    const spaces: Record<string, number> = {};
    for (const space of v8.getHeapSpaceStatistics()) spaces[space.space_name] = space.space_used_size / MB;
    return {
      atMs: performance.now(),
      rssMb: status.rss,
      peakMb: status.peak,
      anonMb: status.anon,
      fileMb: status.file,
      heapUsedMb: usage.heapUsed / MB,
      heapTotalMb: usage.heapTotal / MB,
      externalMb: usage.external / MB,
      arrayBuffersMb: usage.arrayBuffers / MB,
      wasmSizeMb: wasmBytes() / MB,
      wasmResidentMb: mappings.wasm,
      otherLargeMb: mappings.otherLarge,
      mappings: mappings.list,
      spaces,
    };
  };

  const database = await openBenchDatabase({ dir: spec.dataDir });
  const running = await startBenchApp({ database, sandboxUrl: spec.sandboxUrl, dataDir: spec.dataDir });
  let highest: Sample | null = null;
  let resetAt = 0;
  const session = new inspector.Session();
  const timer = setInterval(() => {
    const now = readStatus();
    if (!highest || now.rss > highest.rssMb) highest = sample();
  }, 100);
  process.on('message', (message: { kind: string; file?: string }) => {
    if (message.kind === 'sample') process.send?.({ kind: 'sample', sample: sample() });
    else if (message.kind === 'alloc-start') {
      session.connect();
      session.post(
        'HeapProfiler.startSampling',
        {
          samplingInterval: 64 * 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        },
        () => process.send?.({ kind: 'alloc-start' }),
      );
    } else if (message.kind === 'alloc-stop') {
      session.post('HeapProfiler.stopSampling', (error, result) =>
        process.send?.({
          kind: 'alloc-stop',
          summary: error ? String(error) : summariseAllocations(result.profile),
        }),
      );
    } else if (message.kind === 'reset') {
      highest = null;
      resetAt = performance.now();
      process.send?.({ kind: 'reset' });
    } else if (message.kind === 'highest') {
      const peak: Sample | null = highest;
      process.send?.({ kind: 'highest', sample: peak ? { ...peak, atMs: peak.atMs - resetAt } : null });
    } else if (message.kind === 'snapshot' && message.file) {
      v8.writeHeapSnapshot(message.file);
      process.send?.({ kind: 'snapshot' });
    } else if (message.kind === 'stop') {
      clearInterval(timer);
      void running.close().finally(() => process.exit(0));
    }
  });
  process.send?.({ kind: 'ready', url: running.url });
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Bytes allocated during the load (garbage included), by allocating function and by the path to it. */
function summariseAllocations(profile: { head: SamplingNode }): string {
  const byFunction = new Map<string, number>();
  const byStack = new Map<string, number>();
  let total = 0;
  const frame = (node: SamplingNode) => {
    const url = node.callFrame.url.replace(/^.*\/(node_modules\/|src\/|bench\/)/, '$1');
    return `${node.callFrame.functionName || '(anonymous)'} ${url}:${node.callFrame.lineNumber + 1}`;
  };
  const walk = (node: SamplingNode, stack: string[]) => {
    const here = [...stack, frame(node)];
    if (node.selfSize > 0) {
      total += node.selfSize;
      byFunction.set(frame(node), (byFunction.get(frame(node)) ?? 0) + node.selfSize);
      const key = here.slice(-6).join(' < ');
      byStack.set(key, (byStack.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, []);
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, bytes]) => `  ${(bytes / MB).toFixed(0).padStart(6)} MB  ${key}`);
  return [
    `allocated during the load (sampled, garbage included): ${(total / MB).toFixed(0)} MB`,
    'by function:',
    ...top(byFunction, 15),
    'by call path (innermost last):',
    ...top(byStack, 8),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// The driver

interface Child {
  url: string;
  ask<T>(kind: string, extra?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

async function startChild(
  spec: { dataDir: string; sandboxUrl: string },
  nodeFlags: string[],
): Promise<Child> {
  // MEMPROF_CHILD: a bundle of this file made with esbuild, run by plain Node (what tsx's loader costs).
  const bundle = process.env.MEMPROF_CHILD;
  const child = fork(path.resolve(bundle ?? 'bench/memory-profile.ts'), ['child', JSON.stringify(spec)], {
    execArgv: bundle ? nodeFlags : [...nodeFlags, '--import', 'tsx'],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (value: unknown) => void>();
  child.on('message', (message: { kind: string; [key: string]: unknown }) => {
    const resolve = waiting.get(message.kind);
    waiting.delete(message.kind);
    resolve?.(message);
  });
  const ask = <T>(kind: string, extra: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      waiting.set(kind, resolve as (value: unknown) => void);
      if (kind !== 'ready') child.send({ kind, ...extra });
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await Promise.race([
    ask<{ url: string }>('ready'),
    exited.then(() => {
      throw new Error('server process exited before it was ready');
    }),
  ]);
  return {
    url: ready.url,
    ask,
    async stop() {
      child.send({ kind: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function describe(label: string, s: Sample): string {
  const f = (n: number | null) => (n === null ? '  n/a' : n.toFixed(0).padStart(5));
  // Resident anonymous memory not accounted for by the JS heap, PGlite's WebAssembly memory, other large
  // mappings or Node's buffers: V8 and Node's own native memory, malloc arenas, thread stacks.
  const other = s.anonMb - s.heapTotalMb - (s.wasmResidentMb ?? 0) - s.otherLargeMb - s.arrayBuffersMb;
  return [
    `${label.padEnd(6)} RSS ${f(s.rssMb)} (peak ${f(s.peakMb)}) = anon ${f(s.anonMb)} + file/shmem ${f(s.fileMb)} MB`,
    `       PGlite WebAssembly memory ${f(s.wasmSizeMb)} MB, resident ${f(s.wasmResidentMb)} MB;` +
      ` other large mappings resident ${f(s.otherLargeMb)} MB`,
    `       JS heap: used ${f(s.heapUsedMb)} of ${f(s.heapTotalMb)} MB  [${Object.entries(s.spaces)
      .filter(([, mb]) => mb >= 1)
      .map(([name, mb]) => `${name.replace(/_space$/, '')} ${mb.toFixed(0)}`)
      .join(', ')}]`,
    `       external ${f(s.externalMb)} MB (WebAssembly memory included), arrayBuffers ${f(s.arrayBuffersMb)} MB`,
    `       anon left (V8/Node native, malloc, stacks): ${f(other)} MB`,
    `       mappings with 8 MB or more resident (size/resident MB): ${s.mappings.join(', ')}`,
  ].join('\n');
}

async function drive(): Promise<void> {
  const orgCount = Number(process.env.BENCH_MEM_ORGS ?? 10);
  const invoices = Number(process.env.BENCH_MEM_INVOICES ?? 10_000);
  const seconds = Number(process.env.MEMPROF_SECONDS ?? 10);
  const runs = Number(process.env.MEMPROF_RUNS ?? 1);
  const snapshots = ['1', 'true', 'yes'].includes(process.env.MEMPROF_SNAPSHOTS ?? '');
  const nodeFlags = (process.env.MEMPROF_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const sandbox = await startBenchSandbox({ scale: 1 });
  const dir = makeTempDir('memory-profile');
  try {
    console.log(`writing ${orgCount} × ${invoices} cached invoices`);
    const database = await openBenchDatabase({ dir });
    const running = await startBenchApp({ database, sandboxUrl: sandbox.url, dataDir: dir });
    const orgIds: number[] = [];
    let cookie = '';
    try {
      const client = new ApiClient(running.url);
      await signIn(client);
      cookie = client.cookie;
      const user = await client.json<{ id: number }>('GET', '/api/user');
      for (let i = 1; i <= orgCount; i++) {
        const id = await insertCachedOrganization(running.database.db, user.id, `Bench Organisation ${i}`);
        await insertOutstandingInvoices(running.database.db, id, invoices, i * 1_000_000);
        await markSalesOpenSynced(running.database.db, id);
        orgIds.push(id);
      }
    } finally {
      await running.close();
    }
    for (let run = 1; run <= runs; run++) {
      console.log(`\nrun ${run} of ${runs}${nodeFlags.length ? ` (node ${nodeFlags.join(' ')})` : ''}`);
      const child = await startChild({ dataDir: dir, sandboxUrl: sandbox.url }, nodeFlags);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const idle = (await child.ask<{ sample: Sample }>('sample')).sample;
        console.log(describe('idle', idle));
        const stamp = Date.now();
        const idleFile = path.join(TMP_ROOT, `memory-${stamp}-idle.heapsnapshot`);
        if (snapshots) await child.ask('snapshot', { file: idleFile });
        const allocations = ['1', 'true', 'yes'].includes(process.env.MEMPROF_ALLOCATIONS ?? '');
        if (allocations) await child.ask('alloc-start');
        await child.ask('reset');
        const duringAt = Number(process.env.MEMPROF_SNAPSHOT_AT_MS ?? 0);
        const duringFile = path.join(TMP_ROOT, `memory-${stamp}-during.heapsnapshot`);
        const during =
          snapshots && duringAt > 0
            ? new Promise((resolve) => setTimeout(resolve, duringAt)).then(() =>
                child.ask('snapshot', { file: duringFile }),
              )
            : null;
        const result = await autocannon({
          url: child.url,
          connections: 10,
          duration: seconds,
          headers: { cookie, 'accept-encoding': 'gzip' },
          timeout: 60,
          requests: orgIds.map((id) => ({ path: `/api/xero/invoices?org=${id}` })),
        });
        const allocated = allocations ? (await child.ask<{ summary: string }>('alloc-stop')).summary : '';
        const highest = (await child.ask<{ sample: Sample | null }>('highest')).sample;
        const after = (await child.ask<{ sample: Sample }>('sample')).sample;
        await during;
        if (highest)
          console.log(
            describe('peak', highest) + `\n       at ${(highest.atMs / 1000).toFixed(1)} s into the load`,
          );
        console.log(describe('after', after));
        console.log(
          `       load: ${result.requests.total} requests, ${result.requests.average.toFixed(1)} req/s,` +
            ` p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} failed`,
        );
        if (allocated) console.log(allocated);
        if (snapshots) {
          const afterFile = path.join(TMP_ROOT, `memory-${stamp}-after.heapsnapshot`);
          await child.ask('snapshot', { file: afterFile });
          for (const file of [idleFile, ...(during ? [duringFile] : []), afterFile])
            console.log(`\n${file}\n${analyse(file)}`);
        }
      } finally {
        await child.stop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await sandbox.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Heap snapshot: self size by constructor, and the largest objects by retained size (dominator tree)

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export function analyse(file: string, top = 20): string {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf('type');
  const nName = meta.node_fields.indexOf('name');
  const nSelf = meta.node_fields.indexOf('self_size');
  const nEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eTo = meta.edge_fields.indexOf('to_node');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const count = snap.nodes.length / nf;
  const firstEdge = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = (firstEdge[i] ?? 0) + (snap.nodes[i * nf + nEdges] ?? 0);
  const className = (i: number): string => {
    const type = nodeTypes[snap.nodes[i * nf + nType] ?? 0] ?? '?';
    const name = snap.strings[snap.nodes[i * nf + nName] ?? 0] ?? '';
    if (type === 'object' || type === 'native') return name.split(' ')[0] === name ? name : name.slice(0, 60);
    if (type === 'hidden' && name.startsWith('system /')) return `(${name})`;
    return `(${type})`;
  };
  const self = (i: number) => snap.nodes[i * nf + nSelf] ?? 0;
  const targets = (i: number, visit: (to: number, edge: number) => void) => {
    for (let e = firstEdge[i] ?? 0; e < (firstEdge[i + 1] ?? 0); e++) {
      if (snap.edges[e * ef + eType] === weak) continue;
      visit((snap.edges[e * ef + eTo] ?? 0) / nf, e);
    }
  };

  // Post-order from the root (node 0), iteratively.
  const order = new Int32Array(count).fill(-1);
  const post: number[] = [];
  const stack: number[] = [0];
  const cursor = new Int32Array(count);
  const seen = new Uint8Array(count);
  seen[0] = 1;
  for (let i = 0; i < count; i++) cursor[i] = firstEdge[i] ?? 0;
  while (stack.length > 0) {
    const n = stack[stack.length - 1] ?? 0;
    let pushed = false;
    while ((cursor[n] ?? 0) < (firstEdge[n + 1] ?? 0)) {
      const e = cursor[n] ?? 0;
      cursor[n] = e + 1;
      if (snap.edges[e * ef + eType] === weak) continue;
      const to = (snap.edges[e * ef + eTo] ?? 0) / nf;
      if (!seen[to]) {
        seen[to] = 1;
        stack.push(to);
        pushed = true;
        break;
      }
    }
    if (!pushed) {
      order[n] = post.length;
      post.push(n);
      stack.pop();
    }
  }
  // Predecessors (reachable ones only).
  const predCount = new Int32Array(count + 1);
  for (const n of post) targets(n, (to) => (predCount[to + 1] = (predCount[to + 1] ?? 0) + 1));
  for (let i = 0; i < count; i++) predCount[i + 1] = (predCount[i + 1] ?? 0) + (predCount[i] ?? 0);
  const preds = new Int32Array(predCount[count] ?? 0);
  const fill = predCount.slice();
  for (const n of post)
    targets(n, (to) => {
      const at = fill[to] ?? 0;
      preds[at] = n;
      fill[to] = at + 1;
    });
  // Cooper, Harvey and Kennedy's iterative dominators, on post-order numbers.
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while ((order[a] ?? 0) < (order[b] ?? 0)) a = idom[a] ?? 0;
      while ((order[b] ?? 0) < (order[a] ?? 0)) b = idom[b] ?? 0;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const n = post[k] ?? 0;
      let next = -1;
      for (let p = predCount[n] ?? 0; p < (predCount[n + 1] ?? 0); p++) {
        const pred = preds[p] ?? 0;
        if ((idom[pred] ?? -1) === -1) continue;
        next = next === -1 ? pred : intersect(pred, next);
      }
      if (next !== -1 && idom[n] !== next) {
        idom[n] = next;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(count);
  for (const n of post) retained[n] = (retained[n] ?? 0) + self(n);
  for (const n of post)
    if (n !== 0) retained[idom[n] ?? 0] = (retained[idom[n] ?? 0] ?? 0) + (retained[n] ?? 0);

  const byClass = new Map<string, { count: number; self: number; retained: number }>();
  for (const n of post) {
    const name = className(n);
    const entry = byClass.get(name) ?? { count: 0, self: 0, retained: 0 };
    entry.count++;
    entry.self += self(n);
    // Retained by a class: its objects not dominated by another of the same class (as DevTools counts it).
    let d = idom[n] ?? 0;
    let nested = false;
    for (let hops = 0; d !== 0 && hops < 40; hops++, d = idom[d] ?? 0)
      if (className(d) === name) {
        nested = true;
        break;
      }
    if (!nested) entry.retained += retained[n] ?? 0;
    byClass.set(name, entry);
  }
  const total = post.reduce((sum, n) => sum + self(n), 0);
  const mb = (b: number) => (b / MB).toFixed(1).padStart(7);
  const lines = [
    `reachable: ${post.length} objects, ${mb(total)} MB self size`,
    'by class (top by retained size):',
  ];
  for (const [name, e] of [...byClass].sort((a, b) => b[1].retained - a[1].retained).slice(0, top))
    lines.push(
      `  ${mb(e.retained)} MB retained ${mb(e.self)} MB self ${String(e.count).padStart(8)}  ${name}`,
    );
  lines.push('largest single objects by retained size (with their dominator chain):');
  const edgeName = (from: number, to: number): string => {
    for (let e = firstEdge[from] ?? 0; e < (firstEdge[from + 1] ?? 0); e++)
      if ((snap.edges[e * ef + eTo] ?? 0) / nf === to) {
        const v = snap.edges[e * ef + eName] ?? 0;
        const t = edgeTypes[snap.edges[e * ef + eType] ?? 0];
        return t === 'element' || t === 'hidden' ? `[${v}]` : (snap.strings[v] ?? '?');
      }
    return '…';
  };
  const big = post
    .filter((n) => n !== 0 && (retained[n] ?? 0) >= MB && !className(n).startsWith('(GC roots'))
    .sort((a, b) => (retained[b] ?? 0) - (retained[a] ?? 0));
  let shown = 0;
  for (const n of big) {
    // Skip objects whose dominator is itself listed with nearly the same size (a chain of wrappers).
    const parent = idom[n] ?? 0;
    if (parent !== 0 && (retained[parent] ?? 0) - (retained[n] ?? 0) < 0.05 * (retained[n] ?? 0)) continue;
    const chain: string[] = [];
    for (let d = n, hops = 0; d !== 0 && hops < 6; hops++) {
      const up = idom[d] ?? 0;
      chain.push(`${className(up)}.${edgeName(up, d)}`);
      d = up;
    }
    lines.push(`  ${mb(retained[n] ?? 0)} MB ${className(n)}  ← ${chain.join(' ← ')}`);
    if (++shown >= top) break;
  }
  return lines.join('\n');
}

const [mode, arg = ''] = process.argv.slice(2);
if (mode === 'child') await runChild(JSON.parse(arg) as { dataDir: string; sandboxUrl: string });
else if (mode === 'analyse') console.log(analyse(arg));
else await drive();
