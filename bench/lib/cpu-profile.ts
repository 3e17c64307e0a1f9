/**
 * Reading Node's `--cpu-prof` profiles (bench/profile-server.ts, bench/first-visit-waterfall.ts): self time
 * charged to the area a function's source belongs to (a package, a Node module, one of our files).
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** An area a function's self time is charged to, from its source file. */
function describeArea(url: string, name: string): string {
  if (!url) return name === '(garbage collector)' ? 'GC' : name.startsWith('(') ? name : 'native / V8';
  const inPackage = url.split('node_modules/').pop();
  if (inPackage !== undefined && inPackage !== url) {
    const [scope = '', name = ''] = inPackage.split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  if (url.startsWith('node:')) return url.split('/')[0] ?? url;
  const src = /\/(src\/.*|bench\/.*)$/.exec(url);
  return src?.[1] ?? url;
}

/**
 * A CPU profile's self time by area and by function, counting only samples taken inside `window` (µs on the
 * monotonic clock both `process.hrtime` and the profile use): start-up is left out that way.
 */
export function summarizeProfile(
  file: string,
  requests: number,
  window: { fromUs: number; toUs?: number },
): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= window.fromUs && (window.toUs === undefined || at <= window.toUs))
      selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const area = describeArea(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${area}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const perRequest = (us: number) => (requests > 0 ? `${(us / requests).toFixed(0)} µs/req` : '');
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, us]) =>
          `    ${((100 * us) / total).toFixed(1).padStart(5)} %  ${perRequest(us).padStart(12)}  ${k}`,
      )
      .join('\n');
  return [
    `  busy ${(total / 1e3).toFixed(0)} ms, idle ${(idle / 1e3).toFixed(0)} ms, ${requests} requests → ${perRequest(total)} of CPU on the server thread`,
    '  by area:',
    top(byArea, 14),
    '  by function (self time):',
    top(byFunction, 25),
  ].join('\n');
}

/**
 * The window cut into slices of `sliceMs`: each slice's busy time and the places in our code (the nearest
 * frame under src/ on each sample's stack, else its area) that the busy time was spent under, largest first.
 */
export function sliceProfile(
  file: string,
  window: { fromUs: number; toUs: number },
  sliceMs: number,
  label: (atMs: number) => string = (atMs) => `${atMs}`,
): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const ownerCache = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const cached = ownerCache.get(id);
    if (cached !== undefined) return cached;
    let at: number | undefined = id;
    let owner = '';
    while (at !== undefined) {
      const frame = byId.get(at)?.callFrame;
      const src = frame ? /\/(src\/[^?]*)$/.exec(frame.url) : null;
      if (frame && src) {
        owner = `${frame.functionName || '(anonymous)'} ${src[1]}:${frame.lineNumber + 1}`;
        break;
      }
      at = parentOf.get(at);
    }
    if (!owner) {
      const frame = byId.get(id)?.callFrame;
      owner = frame ? describeArea(frame.url, frame.functionName) : '?';
    }
    ownerCache.set(id, owner);
    return owner;
  };
  const sliceUs = sliceMs * 1000;
  const slices = new Map<number, Map<string, number>>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.fromUs || at > window.toUs) return;
    const name = byId.get(id)?.callFrame.functionName;
    if (name === '(idle)') return;
    const slice = Math.floor((at - window.fromUs) / sliceUs);
    const owners = slices.get(slice) ?? new Map<string, number>();
    const owner = ownerOf(id);
    owners.set(owner, (owners.get(owner) ?? 0) + delta);
    slices.set(slice, owners);
  });
  const lines: string[] = [];
  const count = Math.ceil((window.toUs - window.fromUs) / sliceUs);
  for (let s = 0; s < count; s++) {
    const owners = [...(slices.get(s) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1]);
    const busy = owners.reduce((sum, [, us]) => sum + us, 0);
    const top = owners
      .slice(0, 3)
      .map(([owner, us]) => `${owner} ${(us / 1000).toFixed(0)}`)
      .join(' · ');
    lines.push(
      `${label(s * sliceMs).padStart(6)}  busy ${String(Math.round(busy / 1000)).padStart(3)} ms  ${top}`,
    );
  }
  return lines.join('\n');
}
