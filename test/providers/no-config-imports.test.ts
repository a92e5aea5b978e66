/**
 * The direction of imports between the wires and the configuration (ARCHITECTURE.md): providers/ never
 * imports config/ — not even a type — and the catalogue, which reads config, lives apart in catalog/.
 * config/ takes from providers/ only the provider table and the provider types. Read from the source
 * files, so a new import anywhere (static, dynamic, type-only or a re-export) is caught.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/** Every .ts file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(dir, name));
}

/** The modules a file imports, as paths relative to src/ ("config/schema.ts"); packages are left out. */
function importsOf(file: string, text = readFileSync(file, "utf8")): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm),
    ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1]!);
  return specifiers
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(SRC, resolve(dirname(file), specifier)));
}

test("the import reader sees static, type-only, multi-line, re-exported and dynamic imports", () => {
  const file = join(SRC, "providers", "example.ts");
  const text = [
    'import { a } from "../config/a.ts";',
    'import type { B } from "../config/b.ts";',
    "import {\n  c,\n  d,\n} from '../config/c.ts';",
    'export { e } from "../config/e.ts";',
    'import "../config/side-effect.ts";',
    'const f = await import("../config/f.ts");',
    'import { z } from "zod";',
    'import { g } from "./types.ts";',
  ].join("\n");
  expect(importsOf(file, text)).toEqual([
    "config/a.ts",
    "config/b.ts",
    "config/c.ts",
    "config/e.ts",
    "providers/types.ts",
    "config/side-effect.ts",
    "config/f.ts",
  ]);
});

test("no file under src/providers imports from src/config", () => {
  const offending = sourceFiles(join(SRC, "providers")).flatMap((file) =>
    importsOf(file)
      .filter((module) => module.startsWith("config/"))
      .map((module) => `${relative(SRC, file)} → ${module}`),
  );
  expect(offending).toEqual([]);
});

test("src/config takes from src/providers only the provider table and types, and nothing from the catalogue", () => {
  const allowed = new Set(["providers/registry.ts", "providers/types.ts"]);
  const offending = sourceFiles(join(SRC, "config")).flatMap((file) =>
    importsOf(file)
      .filter(
        (module) =>
          (module.startsWith("providers/") && !allowed.has(module)) || module.startsWith("catalog/"),
      )
      .map((module) => `${relative(SRC, file)} → ${module}`),
  );
  expect(offending).toEqual([]);
});
