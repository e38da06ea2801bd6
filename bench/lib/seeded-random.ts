/**
 * Seeded randomness for benchmark data. Benchmarks compare runs against each other, so
 * the data must be byte-for-byte the same every run; Math.random cannot be seeded.
 */

/** mulberry32: a fast 32-bit generator with a good spread for data generation (not cryptography). */
export function createSeededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A stateless 32-bit hash of (value, seed): lets each visitor own fixed attributes (user
 * agent, address) derived on demand, so a generator never keeps a table of a million visitors.
 */
export function hash32(value: number, seed: number): number {
  let mixed = (Math.imul(value >>> 0, 0x9e3779b1) ^ Math.imul(seed >>> 0, 0x85ebca77)) >>> 0;
  mixed = Math.imul(mixed ^ (mixed >>> 16), 0x21f0aaad);
  mixed = Math.imul(mixed ^ (mixed >>> 15), 0x735a2d97);
  return (mixed ^ (mixed >>> 15)) >>> 0;
}
