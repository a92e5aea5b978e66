import { describe, expect, test } from "bun:test";
import { type ArgsDef, parseArgs } from "citty";
import { argsForCitty, checkFlags, parseChoice, parsePositiveInt } from "../../src/commands/_shared.ts";
import { runArgs } from "../../src/commands/run.ts";
import { IonError } from "../../src/errors.ts";

const ARGS = {
  prompt: { type: "positional", required: false },
  model: { type: "string", alias: "m" },
  file: { type: "string", alias: ["f", "F"] },
  quiet: { type: "boolean", alias: "q" },
  verbose: { type: "boolean", alias: "v" },
  session: { type: "boolean", default: true },
  "max-turns": { type: "string" },
} satisfies ArgsDef;

const check = (args: string[], repeatable: string[] = ["file"]) => checkFlags("run", args, ARGS, repeatable);

function usageError(fn: () => unknown): IonError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IonError);
    expect((err as IonError).code).toBe("usage");
    return err as IonError;
  }
  throw new Error("expected a usage error");
}

describe("checkFlags", () => {
  test("known long, short and positional arguments pass", () => {
    expect(check(["-m", "openai/gpt", "--quiet", "hello", "world"])).toEqual({ file: [] });
    expect(check([])).toEqual({ file: [] });
    expect(check(["-"])).toEqual({ file: [] });
  });

  test("unknown long and short flags are usage errors naming the flag and the help", () => {
    const long = usageError(() => check(["--bogus"]));
    expect(long.message).toContain("--bogus");
    expect(long.message).toContain('"ion run"');
    expect(long.hint).toContain("ion run --help");
    expect(usageError(() => check(["-x"])).message).toContain("-x");
    expect(usageError(() => check(["--bogus=1"])).message).toContain("--bogus");
  });

  test("--help and -h are always known", () => {
    expect(check(["--help"])).toEqual({ file: [] });
    expect(check(["-h"])).toEqual({ file: [] });
  });

  test("--no-x negates booleans only", () => {
    expect(check(["--no-session", "--no-quiet"])).toEqual({ file: [] });
    expect(usageError(() => check(["--no-model"])).message).toContain("--no-model");
    expect(usageError(() => check(["--no-such"])).message).toContain("--no-such");
  });

  test("a boolean takes no value but true or false: --x=0 must not turn it on", () => {
    expect(check(["--quiet=true", "--session=false"])).toEqual({ file: [] });
    for (const arg of ["--quiet=0", "--quiet=no", "--quiet=maybe", "--quiet="]) {
      const error = usageError(() => check([arg]));
      expect(error.message).toBe(`--quiet takes no value, got "${arg}"`);
      expect(error.hint).toBe("give --quiet alone to turn it on, or --no-quiet to turn it off");
    }
    expect(usageError(() => check(["-q=maybe"])).message).toBe('-q takes no value, got "-q=maybe"');
  });

  test("--flag=value, --flag value, -fvalue, -f value", () => {
    expect(check(["--file=a.txt", "--file", "b.txt", "-fc.txt", "-f", "d.txt", "-Fe.txt"])).toEqual({
      file: ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"],
    });
  });

  test("a negative number is a value, never a flag: -1, -0.5 and -.5 pass as positionals", () => {
    expect(check(["mcp.startup_timeout_ms", "-1"])).toEqual({ file: [] });
    expect(check(["-0.5", "--quiet", "-.5"])).toEqual({ file: [] });
    expect(usageError(() => check(["-1x"])).message).toContain("unknown option -1");
  });

  test("argsForCitty puts positionals after -- only when one is a negative number", () => {
    const plain = ["-q", "hello", "--model", "m"];
    expect(argsForCitty(plain, ARGS)).toBe(plain);
    expect(argsForCitty(["key", "-1", "--model", "m", "-q"], ARGS)).toEqual([
      "--model",
      "m",
      "-q",
      "--",
      "key",
      "-1",
    ]);
    expect(argsForCitty(["-0.5", "--", "-x"], ARGS)).toEqual(["--", "-0.5", "-x"]);
    const parsed: Record<string, unknown> = { ...parseArgs(argsForCitty(["-1", "-q"], ARGS), ARGS) };
    expect(parsed.prompt).toBe("-1");
    expect(parsed.quiet).toBe(true);
  });

  test("--flag=value keeps everything after the first =, even an empty value", () => {
    expect(check(["--file=a=b.txt", "--file="])).toEqual({ file: ["a=b.txt", ""] });
  });

  test("a value that looks like a flag is taken as the value", () => {
    expect(check(["-f", "--weird-name", "-m", "-x"])).toEqual({ file: ["--weird-name"] });
  });

  test("clustered short booleans, optionally ending in a value-taking flag", () => {
    expect(check(["-qv"])).toEqual({ file: [] });
    expect(check(["-qvf", "x.txt"])).toEqual({ file: ["x.txt"] });
    expect(check(["-qfx.txt"])).toEqual({ file: ["x.txt"] });
    expect(usageError(() => check(["-qz"])).message).toContain("-z");
  });

  test("repeatable flags are collected in order; others are not collected", () => {
    expect(check(["-f", "1", "--model", "m", "-f", "2", "--file=3"])).toEqual({ file: ["1", "2", "3"] });
    expect(check(["-m", "a", "-m", "b"], ["file", "model"])).toEqual({ file: [], model: ["a", "b"] });
  });

  test("a value-taking flag at the end without a value is a usage error", () => {
    expect(usageError(() => check(["hello", "--model"])).message).toContain("--model");
    expect(usageError(() => check(["-f"])).message).toContain("-f");
    expect(usageError(() => check(["-qf"])).message).toContain("needs a value");
  });

  test("everything after -- is ignored", () => {
    expect(check(["-q", "--", "--bogus", "-x", "-f"])).toEqual({ file: [] });
    expect(check(["-f", "a", "--", "-f", "b"])).toEqual({ file: ["a"] });
  });

  test("the real `ion run` flag set", () => {
    const raw = [
      "-m",
      "anthropic/claude",
      "-o",
      "stream-json",
      "--partial",
      "-qv",
      "--max-turns=3",
      "--thinking",
      "low",
      "--system",
      "be brief",
      "--cwd",
      ".",
      "-f",
      "a",
      "--file",
      "b",
      "do it",
    ];
    expect(checkFlags("run", raw, runArgs, ["file"])).toEqual({ file: ["a", "b"] });
    expect(usageError(() => checkFlags("run", ["--max_turns", "3"], runArgs)).message).toContain(
      "--max_turns",
    );
  });
});

describe("parsePositiveInt", () => {
  test("accepts positive whole numbers", () => {
    expect(parsePositiveInt("--max-turns", "1")).toBe(1);
    expect(parsePositiveInt("--max-turns", "50")).toBe(50);
    expect(parsePositiveInt("--max-turns", "007")).toBe(7);
  });

  for (const bad of ["0", "-1", "1.5", "abc", "", " ", "0x10", "1e3", "Infinity", "99999999999999999999"]) {
    test(`rejects ${JSON.stringify(bad)}`, () => {
      const err = usageError(() => parsePositiveInt("--max-turns", bad));
      expect(err.message).toContain("--max-turns");
      expect(err.message).toContain(`"${bad}"`);
    });
  }
});

describe("parseChoice", () => {
  const FORMATS = ["text", "json", "stream-json"] as const;
  test("returns a listed value", () => {
    expect(parseChoice("--output-format", "json", FORMATS)).toBe("json");
  });
  test("anything else is a usage error listing the choices", () => {
    const err = usageError(() => parseChoice("--output-format", "JSON", FORMATS));
    expect(err.message).toContain("text, json, stream-json");
    expect(err.message).toContain('"JSON"');
    usageError(() => parseChoice("--output-format", "", FORMATS));
  });
});
