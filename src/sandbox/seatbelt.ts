/**
 * The Seatbelt profile `sandbox-exec` runs a command under on macOS. Everything but writing and the network
 * is allowed as usual (a deny-by-default profile breaks ordinary tools in ways that change with each macOS);
 * writes are denied except to the writable directories, the temporary directories and the terminal
 * devices; the network is denied, or allowed only to ion's host proxy on loopback, or allowed.
 * Paths go in as parameters (`-D`), never spliced into the profile, so no path can change its meaning.
 *
 *   seatbeltArgv("/usr/bin/sandbox-exec", { writable: ["/Users/me/proj"], tmp: true, network: { kind: "none" } }, ["bash", "-c", "make"])
 *   → ["/usr/bin/sandbox-exec", "-p", PROFILE, "-DWRITABLE_ROOT_0=/Users/me/proj", "--", "bash", "-c", "make"]
 */

export type SeatbeltNetwork = { kind: "none" } | { kind: "all" } | { kind: "proxy"; port: number };

export interface SeatbeltLayout {
  /** Real paths writable (empty in mode read-only). */
  writable: string[];
  /** The temporary directories are writable too (mode workspace-write). */
  tmp: boolean;
  network: SeatbeltNetwork;
}

const DEVICES = [
  '(literal "/dev/null")',
  '(literal "/dev/zero")',
  '(literal "/dev/dtracehelper")',
  '(literal "/dev/tty")',
  '(regex #"^/dev/ttys[0-9]+$")',
  '(regex #"^/dev/fd/[0-9]+$")',
];

/** The profile's text; its paths are the parameters `seatbeltParams` gives. */
export function seatbeltProfile(layout: SeatbeltLayout): string {
  const writes = [
    ...layout.writable.map((_, i) => `(subpath (param "WRITABLE_ROOT_${i}"))`),
    ...(layout.tmp ? ['(subpath "/private/tmp")', '(subpath "/private/var/folders")'] : []),
    ...DEVICES,
  ];
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write*\n  ${writes.join("\n  ")})`,
  ];
  if (layout.network.kind !== "all") {
    lines.push("(deny network*)", "(allow network* (remote unix-socket) (local unix-socket))");
    if (layout.network.kind === "proxy")
      lines.push(`(allow network-outbound (remote ip "localhost:${layout.network.port}"))`);
  }
  return `${lines.join("\n")}\n`;
}

export function seatbeltParams(layout: SeatbeltLayout): string[] {
  return layout.writable.map((dir, i) => `-DWRITABLE_ROOT_${i}=${dir}`);
}

export function seatbeltArgv(
  sandboxExec: string,
  layout: SeatbeltLayout,
  inner: readonly string[],
): string[] {
  return [sandboxExec, "-p", seatbeltProfile(layout), ...seatbeltParams(layout), "--", ...inner];
}
