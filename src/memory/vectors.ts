/**
 * Vector arithmetic for recall: Float16 blobs as stored, cosine similarity, and binary quantisation
 * (one sign bit per dimension, packed into 32-bit words) whose Hamming distance is a cheap prefilter
 * before exact cosine re-ranking of a few hundred candidates.
 */

/** A vector as stored: Float16, little-endian (the platform's order; ion's targets are little-endian). */
export function encodeVector(vector: Float32Array): Uint8Array {
  const half = new Float16Array(vector);
  return new Uint8Array(half.buffer, half.byteOffset, half.byteLength);
}

/** A stored blob back to Float32. */
export function decodeVector(blob: Uint8Array): Float32Array {
  const bytes = blob.byteOffset % 2 === 0 ? blob : blob.slice(); // Float16Array needs 2-byte alignment
  return new Float32Array(new Float16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 2)));
}

export function norm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/** Cosine similarity; 0 when either vector is all zeros or their lengths differ. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa === 0 || bb === 0 ? 0 : dot / Math.sqrt(aa * bb);
}

/** Words of 32 bits needed for the sign code of a vector with `dims` dimensions. */
export const codeWords = (dims: number): number => Math.ceil(dims / 32);

/** The sign bits of a vector (bit i set when component i > 0), packed little-end first. */
export function signCode(vector: Float32Array): Uint32Array {
  const code = new Uint32Array(codeWords(vector.length));
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) code[i >>> 5]! |= 1 << (i & 31);
  return code;
}

export function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Hamming distances from `query` to each code in `codes` (`count` codes of `words` words, back to
 * back), written into `out`.
 */
export function hammingAll(
  query: Uint32Array,
  codes: Uint32Array,
  count: number,
  words: number,
  out: Uint16Array,
): void {
  for (let row = 0, base = 0; row < count; row++, base += words) {
    let distance = 0;
    for (let w = 0; w < words; w++) distance += popcount32(codes[base + w]! ^ query[w]!);
    out[row] = distance;
  }
}

/**
 * The indices of the `k` smallest distances (ties by lower index), ascending. A counting pass over
 * the small integer range finds the cut-off distance, so it is linear in the number of rows.
 */
export function smallestK(distances: Uint16Array, count: number, k: number, maxDistance: number): number[] {
  if (k <= 0 || count === 0) return [];
  const histogram = new Uint32Array(maxDistance + 2);
  for (let i = 0; i < count; i++) histogram[distances[i]!]!++;
  let cutoff = 0;
  for (let seen = 0; cutoff <= maxDistance; cutoff++) {
    seen += histogram[cutoff]!;
    if (seen >= k) break;
  }
  // Every row closer than the cut-off, then rows at it in index order until there are k.
  let atCutoff = k;
  for (let d = 0; d < cutoff; d++) atCutoff -= histogram[d]!;
  const picked: number[] = [];
  for (let i = 0; i < count; i++) {
    const d = distances[i]!;
    if (d < cutoff) picked.push(i);
    else if (d === cutoff && atCutoff > 0) {
      picked.push(i);
      atCutoff--;
    }
  }
  picked.sort((a, b) => distances[a]! - distances[b]! || a - b);
  return picked;
}
