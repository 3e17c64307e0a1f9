/**
 * Deterministic pseudo-random numbers for seed data (sfc32 seeded through splitmix32), so the same
 * seed always yields the same organisations, contacts, invoices and IDs.
 */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** A version-4 shaped UUID drawn from this stream. */
  uuid(): string;
}

function splitmix32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x9e3779b9) >>> 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    t ^= t >>> 15;
    return t >>> 0;
  };
}

export function createRandom(seed: number, stream = 0): Random {
  const init = splitmix32((seed * 2654435761 + stream * 40503) >>> 0);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const nextU32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) nextU32();
  const hex = (n: number, len: number): string => n.toString(16).padStart(8, '0').slice(0, len);
  return {
    next: () => nextU32() / 4294967296,
    int(min, max) {
      return min + Math.floor((nextU32() / 4294967296) * (max - min + 1));
    },
    pick(items) {
      const item = items[Math.floor((nextU32() / 4294967296) * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance(probability) {
      return nextU32() / 4294967296 < probability;
    },
    uuid() {
      const p1 = hex(nextU32(), 8);
      const p2 = hex(nextU32(), 8);
      const p3 = hex(nextU32(), 8);
      const p4 = hex(nextU32(), 8);
      const variant = ((parseInt(p3.slice(0, 1), 16) & 0x3) | 0x8).toString(16);
      return `${p1}-${p2.slice(0, 4)}-4${p2.slice(5, 8)}-${variant}${p3.slice(1, 4)}-${p3.slice(4, 8)}${p4}`;
    },
  };
}
