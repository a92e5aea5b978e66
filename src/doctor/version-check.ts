/** This version, and whether the release `ion update` would install is newer. Offline is a `!`, not a ✗. */
import type { Env } from "../config/paths.ts";
import { isNewer, releaseBase, releaseVersion } from "../update/release.ts";
import { messageOf } from "../util/error-text.ts";
import { VERSION, VERSION_TEXT } from "../version.ts";
import { type Check, check } from "./types.ts";

export async function versionCheck(env: Env, timeoutMs: number): Promise<Check> {
  let latest: string;
  try {
    latest = await releaseVersion(releaseBase(env), timeoutMs);
  } catch (err) {
    return check(
      "version",
      "version",
      "warn",
      `ion ${VERSION_TEXT}; cannot tell whether a newer release exists (${messageOf(err)})`,
      "ion update --check asks again",
    );
  }
  if (isNewer(latest, VERSION))
    return check(
      "version",
      "version",
      "warn",
      `ion ${VERSION_TEXT}; ${latest} is available`,
      "ion update installs it",
    );
  return check("version", "version", "ok", `ion ${VERSION_TEXT}, the latest release is ${latest}`);
}
