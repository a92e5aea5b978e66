/**
 * bubblewrap's argv for a command: the whole filesystem read-only, a minimal /dev and /proc of its own,
 * a private /tmp, the writable directories bound read-write over them, and its own PID namespace (so
 * killing bwrap ends every process inside) and, unless the network is allowed, its own network namespace
 * with only loopback.
 *
 *   bwrapArgv("/usr/bin/bwrap", { writable: ["/home/me/proj"], network: false, cwd: "/home/me/proj" }, ["bash", "-c", "make"])
 *   → [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
 *      "--bind", "/home/me/proj", "/home/me/proj", "--unshare-net", …, "--chdir", "/home/me/proj", "--", "bash", "-c", "make"]
 */

export interface BwrapLayout {
  /** Real paths bound read-write (parents before children); empty in mode read-only. */
  writable: string[];
  /**
   * Real paths bound read-only over the private /tmp, so a workspace under /tmp stays visible in mode
   * read-only (writable ones are visible anyway).
   */
  visible?: string[];
  /** Unshare the network namespace (network off, or only through the proxy). */
  isolateNetwork: boolean;
  /** Where the command starts. */
  cwd: string;
  /** Directories bound read-write besides the writable ones (the proxy's socket directory). */
  extraBinds?: string[];
}

export function bwrapArgv(bwrap: string, layout: BwrapLayout, inner: readonly string[]): string[] {
  const argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  // After the tmpfs: a workspace under /tmp is bound over the fresh, empty /tmp rather than hidden by it.
  for (const dir of layout.visible ?? []) argv.push("--ro-bind", dir, dir);
  for (const dir of [...layout.writable, ...(layout.extraBinds ?? [])]) argv.push("--bind", dir, dir);
  if (layout.isolateNetwork) argv.push("--unshare-net");
  argv.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    // bwrap's own child dies with bwrap, and with it the PID namespace: a kill of bwrap is a kill of the tree.
    "--die-with-parent",
    // No controlling terminal to push input into (TIOCSTI).
    "--new-session",
    "--chdir",
    layout.cwd,
    "--",
    ...inner,
  );
  return argv;
}

/** Sorted so a parent is bound before a directory inside it (a later bind must not be hidden by an earlier one). */
export function bindOrder(dirs: readonly string[]): string[] {
  return [...new Set(dirs)].sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b));
}
