/**
 * Personalised PageRank over a weighted directed graph of numbered nodes (files): a node's rank is what
 * flows into it along edges, each node passing its rank on in proportion to its edges' weights, plus a
 * share of the "teleport" mass placed by the personalisation vector. A node with no edges out gives its
 * rank back through the personalisation too, so the ranks always sum to 1.
 *
 *   pageRank(3, [{ from: 0, to: 2, weight: 1 }, { from: 1, to: 2, weight: 1 }]) → node 2 ranks first
 */

export interface WeightedEdge {
  from: number;
  to: number;
  weight: number;
}

export interface PageRankOptions {
  /** Where a random walk restarts, one weight per node (normalised here); absent: uniform. */
  personalization?: readonly number[];
  /** The chance a walk follows an edge rather than restarting (0.85, as PageRank's paper). */
  damping?: number;
  /** At most this many iterations; it stops earlier once ranks move less than `tolerance` in all. */
  maxIterations?: number;
  tolerance?: number;
}

export function pageRank(
  nodeCount: number,
  edges: readonly WeightedEdge[],
  options: PageRankOptions = {},
): Float64Array {
  const damping = options.damping ?? 0.85;
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-9;
  if (nodeCount === 0) return new Float64Array(0);
  const teleport = normalised(nodeCount, options.personalization);

  const outWeight = new Float64Array(nodeCount);
  const live: WeightedEdge[] = [];
  for (const edge of edges) {
    // A self-reference (a file using its own names) says nothing about its importance to others.
    if (edge.from === edge.to || !(edge.weight > 0)) continue;
    if (edge.from < 0 || edge.from >= nodeCount || edge.to < 0 || edge.to >= nodeCount)
      throw new RangeError(`edge ${edge.from} → ${edge.to} outside 0…${nodeCount - 1}`);
    outWeight[edge.from]! += edge.weight;
    live.push(edge);
  }

  let rank = Float64Array.from(teleport);
  let next = new Float64Array(nodeCount);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    let dangling = 0;
    for (let node = 0; node < nodeCount; node++) if (outWeight[node] === 0) dangling += rank[node]!;
    for (let node = 0; node < nodeCount; node++)
      next[node] = (1 - damping + damping * dangling) * teleport[node]!;
    for (const { from, to, weight } of live) next[to]! += (damping * rank[from]! * weight) / outWeight[from]!;
    let change = 0;
    for (let node = 0; node < nodeCount; node++) change += Math.abs(next[node]! - rank[node]!);
    [rank, next] = [next, rank];
    if (change < tolerance) break;
  }
  return rank;
}

/** The personalisation as a distribution: uniform when absent or all zero; negative weights count as 0. */
function normalised(nodeCount: number, weights: readonly number[] | undefined): Float64Array {
  const out = new Float64Array(nodeCount);
  let sum = 0;
  for (let node = 0; node < nodeCount; node++) {
    const weight = weights?.[node] ?? 0;
    out[node] = weight > 0 && Number.isFinite(weight) ? weight : 0;
    sum += out[node]!;
  }
  if (sum === 0) return out.fill(1 / nodeCount);
  for (let node = 0; node < nodeCount; node++) out[node]! /= sum;
  return out;
}
