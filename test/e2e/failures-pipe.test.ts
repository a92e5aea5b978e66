/**
 * End to end: ion and the pipes it shares with its caller. A reader that leaves early (`| head`) ends
 * ion quietly with the broken-pipe status 141, a failed write is one line and status 1, and the pipes
 * are back in blocking mode when ion exits (SPEC §12). The shell scripts run under bash, which reports
 * a pipeline member's status in PIPESTATUS and opens pipes with process substitution.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ionCommand, jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";
import { fixtureText } from "../support/fake-llm.ts";

const KEY = "sk-test-pipe-failures-0000000000000abcd";
const { server, env } = useOpenAIServer(KEY);
const RUN = ["run", "-m", "openai/gpt-4o-mini"];
/** Enough streamed text that stream-json output is far beyond a pipe's 64 KiB buffer. */
const LONG_ANSWER = "All work and no play makes a dull answer. ".repeat(4000);

interface Shell {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs a bash script with ION set to the ion command line (`"${ION[@]}"`), in the sandbox. */
async function bash(box: Sandbox, script: string, extraEnv: Record<string, string> = {}): Promise<Shell> {
  const ion = ionCommand()
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const child = Bun.spawn(["bash", "-c", `ION=(${ion})\n${script}`], {
    cwd: box.workspace,
    env: box.env({ ...env, ...extraEnv }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { status, stdout, stderr };
}

/**
 * Runs ion with ARGS writing to a pipe whose reader has already exited, so its first write fails
 * with EPIPE whatever its timing; prints ion's status on stdout, ion's stderr on stderr.
 */
function toClosedPipe(args: string[]): string {
  const words = args.map((a) => `'${a}'`).join(" ");
  return `exec 4> >(exit 0); wait $!\n"\${ION[@]}" ${words} >&4; echo $?`;
}

/** Writes a config with a model and a key so that `config show` and `providers` have rows to print. */
async function configured(box: Sandbox): Promise<void> {
  await box.writeConfig({ model: "openai/gpt-4o-mini", providers: { openai: { api_key: KEY } } });
}

describe("a reader that leaves early", () => {
  test("ion run -o stream-json | head -n 2: two lines, then a quiet exit 141", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: LONG_ANSWER });
    const shell = await bash(
      box,
      `"\${ION[@]}" ${RUN.join(" ")} -o stream-json --partial "tell me a story" | head -n 2\necho "status \${PIPESTATUS[0]}" >&2`,
    );
    const lines = jsonLines(shell.stdout);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(shell.stderr).toBe("status 141\n");
    // What was typed is never lost: the session holds the prompt.
    const id = String(lines[0]?.session_id);
    const show = await box.run(["sessions", "show", id, "--json"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("tell me a story");
  });

  test("the interrupted turn is recorded", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: LONG_ANSWER });
    const shell = await bash(
      box,
      `"\${ION[@]}" ${RUN.join(" ")} -o stream-json --partial "tell me a story" | head -n 1`,
    );
    const id = String(jsonLines(shell.stdout)[0]?.session_id);
    const show = await box.run(["sessions", "show", id, "--json"]);
    expect(show.stdout).toContain('"run_end"');
    expect(show.stdout).toContain("error_interrupted");
  });

  test("every command that prints ends with 141 and says nothing when its stdout is closed", async () => {
    using box = new Sandbox();
    await configured(box);
    const commands = [
      ["--version"],
      ["--help"],
      ["run", "--help"],
      ["sessions", "list", "--help"],
      ["providers"],
      ["config", "show"],
      ["config", "path"],
      ["config", "get", "model"],
      ["models", "--help"],
      ["run", ...RUN.slice(1), "-o", "json", "hi"],
    ];
    server.enqueueReply("openai", { text: "hello" });
    for (const args of commands) {
      const shell = await bash(box, toClosedPipe(args));
      expect({ args, status: shell.stdout, stderr: shell.stderr }).toEqual({
        args,
        status: "141\n",
        stderr: "",
      });
    }
  });

  test("ion sessions list and ion models to a closed pipe", async () => {
    using box = new Sandbox();
    server.enqueueReply("openai", { text: "hello" });
    const run = await box.run([...RUN, "hi"], { env });
    expect(run.code).toBe(0);
    const modelsDev = `${server.url}/models-dev/api.json`;
    for (const [pathSuffix, file] of [
      ["/models-dev/api.json", "models-dev-snapshot.json"],
      ["/v1/models", "models/openai-v1-models.json"],
    ] as const)
      server.enqueue({
        pathSuffix,
        headers: { "content-type": "application/json" },
        body: await fixtureText(file),
      });
    for (const args of [["sessions", "list"], ["models"]]) {
      const shell = await bash(box, toClosedPipe(args), { ION_MODELS_URL: modelsDev });
      expect({ args, status: shell.stdout }).toEqual({ args, status: "141\n" });
      // `models` may still say what it left out (its note goes to stderr), but nothing about the pipe.
      expect(shell.stderr).not.toMatch(/ion:|EPIPE|\n\s+at /);
    }
  });
});

describe.if(existsSync("/dev/full"))("a write that fails", () => {
  test("stdout on a full disk: one line and status 1, not a silent success", async () => {
    using box = new Sandbox();
    await configured(box);
    for (const args of [["providers"], ["--version"], ["--help"]]) {
      const shell = await bash(box, `"\${ION[@]}" ${args.join(" ")} > /dev/full; echo $?`);
      expect(shell.stdout).toBe("1\n");
      expect(shell.stderr).toMatch(/^ion: cannot write to stdout: .*ENOSPC.*\n$/);
    }
  });
});

/**
 * Runs ion with stdin, stdout and stderr each a pipe of its own, then prints the O_NONBLOCK bit of each
 * pipe as the shell sees it afterwards ("0 0 0" when all are blocking), from /proc (Linux).
 */
function stdioModesAfter(args: string[]): string {
  const words = args.map((a) => `'${a}'`).join(" ");
  return `exec 3> >(cat > /dev/null) 4> >(cat > /dev/null)
modes() { for fd in 0 3 4; do
  flags=$(sed -n 's/^flags:\\t*//p' "/proc/$BASHPID/fdinfo/$fd"); printf '%s ' $(( (8#$flags >> 11) & 1 ));
done; echo; }
printf 'a prompt' | { modes; "\${ION[@]}" ${words} >&3 2>&4; modes; }`;
}

describe.if(process.platform === "linux")("the caller's pipes after ion exits", () => {
  test("are blocking again, whatever the command", async () => {
    using box = new Sandbox();
    await configured(box);
    server.enqueueReply("openai", { text: "hello" });
    const commands = [
      ["--version"],
      ["providers"],
      ["config", "show"],
      [...RUN, "-o", "stream-json"],
      ["bogus"],
    ];
    for (const args of commands) {
      const shell = await bash(box, stdioModesAfter(args));
      expect({ args, modes: shell.stdout }).toEqual({ args, modes: "0 0 0 \n0 0 0 \n" });
      expect(shell.stderr).toBe("");
    }
  });
});
