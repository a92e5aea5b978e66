import { describe, expect, test } from "bun:test";
import {
  DEFAULT_RELEASE_BASE,
  expectedSum,
  isNewer,
  normalizeVersion,
  releaseBase,
} from "../../src/update/release.ts";
import { oldPathOf } from "../../src/update/replace.ts";

const HASH = "a".repeat(64);

describe("release location", () => {
  test("the latest release is install.sh's default, or ION_INSTALL_BASE without a trailing slash", () => {
    expect(releaseBase({})).toBe(DEFAULT_RELEASE_BASE);
    expect(releaseBase({ ION_INSTALL_BASE: "http://127.0.0.1:8080/rel/" })).toBe("http://127.0.0.1:8080/rel");
  });

  test("a version's assets: GitHub's download/vV, or BASE/vV on any other base", () => {
    expect(releaseBase({}, "0.3.1")).toBe("https://github.com/ion-cli/ion/releases/download/v0.3.1");
    expect(releaseBase({ ION_INSTALL_BASE: "https://mirror.example/ion" }, "0.3.1")).toBe(
      "https://mirror.example/ion/v0.3.1",
    );
  });

  test("versions: a leading v is dropped; anything else that is not x.y.z[-pre] is refused", () => {
    expect(normalizeVersion("v1.2.3\n")).toBe("1.2.3");
    expect(normalizeVersion("1.2.3-rc.1")).toBe("1.2.3-rc.1");
    expect(normalizeVersion("latest")).toBeUndefined();
    expect(normalizeVersion("1.2")).toBeUndefined();
  });

  test("newer in semver order, not string order", () => {
    expect(isNewer("1.10.0", "1.9.0")).toBe(true);
    expect(isNewer("1.0.0", "1.0.0-rc.1")).toBe(true);
    expect(isNewer("1.0.0", "1.0.0")).toBe(false);
    expect(isNewer("0.9.9", "1.0.0")).toBe(false);
  });

  test("SHA256SUMS: text and binary mode lines, exact names only", () => {
    const sums = `${HASH}  ion-linux-x64\n${"B".repeat(64)} *ion-darwin-arm64\n${"c".repeat(64)}  ion-linux-x64.sig\n`;
    expect(expectedSum(sums, "ion-linux-x64")).toBe(HASH);
    expect(expectedSum(sums, "ion-darwin-arm64")).toBe("b".repeat(64));
    expect(expectedSum(sums, "ion-linux")).toBeUndefined();
  });

  test("the previous binary is kept as ion.old (ion.old.exe on Windows)", () => {
    expect(oldPathOf("/home/u/.local/bin/ion")).toBe("/home/u/.local/bin/ion.old");
    expect(oldPathOf("C:/tools/ion.exe")).toBe("C:/tools/ion.old.exe");
  });
});
