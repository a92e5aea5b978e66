/**
 * Kills a command's process group when ion dies before the command ends (kill -9, a crash, a closed
 * terminal), so no tool process outlives ion.
 *
 * A parent-death signal (Codex sets PR_SET_PDEATHSIG in its spawn; `setpriv --pdeathsig` does the
 * same from outside) reaches only the direct child — the shell — because the kernel clears it on
 * fork, so `sleep 30; make` would go on without it; and it exists only on Linux. Instead a detached
 * `sh` blocks reading a pipe that only ion holds open: the kernel closes it however ion ends, the
 * read returns, and the watchdog kills the whole group. This works on every Unix. A process that
 * left the group (setsid, a daemon) is beyond it, as it is beyond ion's own kill.
 */
import { messageOf } from "../util/error-text.ts";

const WATCH = 'read -r _; kill -s KILL -- "-$1"';

export interface GroupWatchdog {
  /** The command is over and its group was killed or ended: the watchdog goes, without touching it. */
  stop(): void;
}

/** Starts the watchdog for the group led by `pgid`; if it cannot start, kills the group and throws. */
export function watchGroup(pgid: number): GroupWatchdog {
  let watchdog: Bun.Subprocess<"pipe", "ignore", "ignore">;
  try {
    watchdog = Bun.spawn(["/bin/sh", "-c", WATCH, "ion-watchdog", String(pgid)], {
      // ion never writes to this pipe: its end closes only when ion ends.
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      // Its own session: a terminal's SIGHUP or Ctrl+C for ion's group does not take it away first.
      detached: true,
    });
  } catch (err) {
    // Unwatched, the command could outlive ion: it does not run at all.
    process.kill(-pgid, "SIGKILL");
    throw new Error(`could not start /bin/sh to watch the command: ${messageOf(err)}`, { cause: err });
  }
  // It must not keep ion running.
  watchdog.unref();
  return {
    stop() {
      // Still ion's unreaped child, so its pid cannot have been reused.
      watchdog.kill("SIGKILL");
    },
  };
}
