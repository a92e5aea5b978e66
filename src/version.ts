import pkg from "../package.json" with { type: "json" };

/**
 * Set by `scripts/build.ts` with `--define ION_COMMIT="abc1234"` when the binary is built from a git
 * checkout; absent when ion runs from source (the `typeof` guard keeps that a plain undefined).
 */
declare const ION_COMMIT: string | undefined;

export const VERSION: string = pkg.version;

/** The short commit the binary was built from, when known. */
export const COMMIT: string | undefined =
  typeof ION_COMMIT === "string" && ION_COMMIT !== "" ? ION_COMMIT : undefined;

/** What `ion --version` prints after "ion ": `0.1.0 (abc1234)`, or `0.1.0` from source. */
export const VERSION_TEXT: string = COMMIT === undefined ? VERSION : `${VERSION} (${COMMIT})`;
