import { IonError } from "../errors.ts";
import { SESSION_VERSION } from "./schema.ts";

/** A session file that could not be read; it was renamed to `movedTo` and left untouched there. */
export class CorruptSessionError extends IonError {
  readonly movedTo: string;
  readonly id: string;
  readonly reason: string;

  constructor(id: string, movedTo: string, reason: string) {
    super("io", `session ${id} could not be read (${reason}); moved it to ${movedTo}`);
    this.name = "CorruptSessionError";
    this.id = id;
    this.movedTo = movedTo;
    this.reason = reason;
  }
}

/** A session file of a newer format than this ion reads: refused, and never moved or changed. */
export class NewerSessionFormatError extends IonError {
  readonly version: number;

  constructor(id: string, version: number) {
    super(
      "io",
      `session ${id} was written by a newer ion (session format version ${version}; this ion reads up to ${SESSION_VERSION})`,
      { hint: "upgrade ion to open it" },
    );
    this.name = "NewerSessionFormatError";
    this.version = version;
  }
}

/** Another live ion process holds the session's lock; `holder` says what it is when known ("an ion chat"). */
export class SessionInUseError extends IonError {
  readonly id: string;
  readonly pid: number;

  constructor(id: string, pid: number, holder?: string) {
    const chat = holder === "an ion chat";
    super("io", `session ${id} is in use by another ion process (pid ${pid}${holder ? `, ${holder}` : ""})`, {
      hint: chat
        ? "leave that chat (or /clear in it) first, or start a new session; nothing was sent or saved"
        : "wait for it to finish, or start a new session; nothing was sent or saved",
    });
    this.name = "SessionInUseError";
    this.id = id;
    this.pid = pid;
  }
}
