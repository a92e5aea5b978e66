/**
 * A temp directory per test holding a project (a git repository), a config dir and a data dir, and
 * the environment naming them, so nothing of the real user is read or written.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export class TempProject {
  readonly base = realpathSync(mkdtempSync(join(tmpdir(), "ion-trust-")));
  readonly root = join(this.base, "project");
  readonly env: Record<string, string> = {
    HOME: join(this.base, "home"),
    ION_CONFIG_DIR: join(this.base, "config"),
    ION_DATA_DIR: join(this.base, "data"),
  };

  constructor(options: { git?: boolean } = {}) {
    mkdirSync(this.root);
    if (options.git !== false) mkdirSync(join(this.root, ".git"));
  }

  /** Writes a file of the project (JSON for anything but a string), creating its directories. */
  write(path: string, content: unknown): string {
    const file = join(this.root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    return file;
  }

  [Symbol.dispose](): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}
