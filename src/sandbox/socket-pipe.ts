/**
 * Two Bun sockets joined into one byte stream each way, for the host proxy and the sandbox's bridge:
 * what one side cannot take yet is held and the other side paused until it drains (backpressure); a
 * FIN from one side becomes a FIN to the other once its held bytes are out (half-close), and a closed
 * side closes the other after the same.
 *
 *   const client = pipeEnd(); const upstream = pipeEnd();
 *   join(client, upstream);
 *   // handlers: open → attach(end, socket); data → forward(end, chunk); drain → drained(end);
 *   //           end → finished(end); close/error → closed(end)
 */
import type { Socket } from "bun";

/** One socket of a pair, as its handlers see it (the socket's `data`). */
export interface PipeEnd {
  socket?: Socket<PipeEnd>;
  peer?: PipeEnd;
  /** Bytes for this socket it has not taken yet, in order. */
  held: Uint8Array[];
  /** The peer sent FIN: send ours once `held` is out. */
  shutdownPending: boolean;
  /** The peer closed: close this one once `held` is out. */
  closePending: boolean;
  /** This socket's remote sent FIN. */
  gotFin: boolean;
  /** We sent FIN on this socket. */
  sentFin: boolean;
  closed: boolean;
}

export function pipeEnd(): PipeEnd {
  return {
    held: [],
    shutdownPending: false,
    closePending: false,
    gotFin: false,
    sentFin: false,
    closed: false,
  };
}

export function join(a: PipeEnd, b: PipeEnd): void {
  a.peer = b;
  b.peer = a;
}

/** The socket is open: anything held for it (written before it connected) goes out now. */
export function attach(end: PipeEnd, socket: Socket<PipeEnd>): void {
  end.socket = socket;
  drained(end);
}

/** Writes `bytes` to `end`, holding what its socket cannot take (copied: Bun may reuse a read buffer). */
export function send(end: PipeEnd, bytes: Uint8Array | string): void {
  if (end.closed) return;
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  if (data.length === 0) return;
  if (!end.socket || end.held.length > 0) {
    end.held.push(new Uint8Array(data));
    return;
  }
  const written = end.socket.write(data);
  if (written < 0) return;
  if (written < data.length) end.held.push(new Uint8Array(data.subarray(written)));
}

/** Bytes read from `from`: to its peer; `from` is paused while the peer holds bytes. */
export function forward(from: PipeEnd, chunk: Uint8Array): void {
  const to = from.peer;
  if (!to) return;
  send(to, chunk);
  if (to.held.length > 0) from.socket?.pause();
}

/** The socket can take more: write what is held, then resume the peer and pass on a pending FIN or close. */
export function drained(end: PipeEnd): void {
  const socket = end.socket;
  if (!socket || end.closed) return;
  while (end.held.length > 0) {
    const chunk = end.held[0] as Uint8Array;
    const written = socket.write(chunk);
    if (written < 0) return;
    if (written < chunk.length) {
      end.held[0] = chunk.subarray(written);
      return;
    }
    end.held.shift();
  }
  const peer = end.peer;
  if (peer?.socket && !peer.closed) peer.socket.resume();
  if (end.closePending) {
    socket.end();
    return;
  }
  if (end.shutdownPending && !end.sentFin) {
    end.sentFin = true;
    socket.shutdown();
    if (end.gotFin) socket.end();
  }
}

/** The socket's remote sent FIN: the peer sends its own once its held bytes are out. */
export function finished(end: PipeEnd): void {
  end.gotFin = true;
  const peer = end.peer;
  if (!peer || peer.closed) {
    end.socket?.end();
    return;
  }
  peer.shutdownPending = true;
  drained(peer);
  // Both directions done: nothing more can pass.
  if (end.sentFin) end.socket?.end();
}

/** The socket closed (or failed): the peer closes once its held bytes are out. */
export function closed(end: PipeEnd): void {
  end.closed = true;
  end.held = [];
  const peer = end.peer;
  if (!peer || peer.closed) return;
  peer.closePending = true;
  drained(peer);
}
