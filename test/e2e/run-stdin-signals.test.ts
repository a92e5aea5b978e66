/**
 * End to end: a signal while `ion run` waits on piped stdin (a writer that never closes it, as
 * `sleep 6 | ion run` or a FIFO held open) ends the run at once with the interrupted result, and a
 * stdin larger than the model's window is refused after reading only what could fit, not all of it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { ionCommand, jsonLines, Sandbox } from "../support/cli.ts";
import { useOpenAIServer } from "../support/e2e.ts";

const { server, env } = useOpenAIServer("sk-test-stdin-signals-0000000000000042");
const HAS_PROC = existsSync("/proc/self/status");

/** ion with stdin a pipe the test holds (and never closes unless it says so), output gathered as it comes. */
function spawnHeld(box: Sandbox, args: string[]) {
  const child = Bun.spawn([...ionCommand(), ...args], {
    cwd: box.workspace,
    env: box.env(env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const seen = { stdout: "", stderr: "" };
  const gather = async (stream: ReadableStream<Uint8Array>, key: "stdout" | "stderr") => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) seen[key] += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([gather(child.stdout, "stdout"), gather(child.stderr, "stderr")]);
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const done = child.exited.then(async (code) => {
    clearTimeout(killer);
    await drained;
    return code;
  });
  return { child, seen, done };
}

async function waitUntil(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(10);
  }
}

async function configured(window?: number): Promise<Sandbox> {
  const box = new Sandbox();
  await box.writeConfig({ model: "openai/gpt-4o-mini", ...(window ? { context_window: window } : {}) });
  return box;
}

describe("a signal while ion reads piped stdin", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    test(`${signal}: exit 2 at once with one interrupted JSON result, nothing sent`, async () => {
      using box = await configured();
      const before = server.requests.length;
      const ion = spawnHeld(box, ["run", "-v", "-o", "json", "hi"]);
      await waitUntil("ion to read stdin", () => ion.seen.stderr.includes("stdin: reading"), 10_000);
      const sent = Date.now();
      ion.child.kill(signal);
      const code = await ion.done;
      expect(Date.now() - sent).toBeLessThan(3_000);
      expect(code).toBe(2);
      const lines = jsonLines(ion.seen.stdout);
      expect(lines).toHaveLength(1);
      const result = lines[0] as { subtype?: string; is_error?: boolean };
      expect(result.subtype).toBe("error_interrupted");
      expect(result.is_error).toBe(true);
      expect(server.requests.length).toBe(before);
      expect(ion.seen.stderr).toContain("ion: interrupted\n");
      ion.child.stdin.end();
    });
  }

  test("stream-json: the interrupted result is the last line", async () => {
    using box = await configured();
    const ion = spawnHeld(box, ["run", "-v", "-o", "stream-json", "-"]);
    await waitUntil("ion to read stdin", () => ion.seen.stderr.includes("stdin: reading"), 10_000);
    ion.child.kill("SIGTERM");
    expect(await ion.done).toBe(2);
    const lines = jsonLines(ion.seen.stdout);
    expect(lines.length).toBeGreaterThan(0);
    const last = lines.at(-1) as { subtype?: string };
    expect(last.subtype).toBe("error_interrupted");
    expect(lines.filter((line) => line.type === "result")).toHaveLength(1);
    ion.child.stdin.end();
  });
});

describe.skipIf(!HAS_PROC)("stdin larger than the window", () => {
  test("300 MB written into the pipe: refused after reading only what could fit, peak memory far below it", async () => {
    using box = await configured(128_000);
    const before = server.requests.length;
    const ion = spawnHeld(box, ["run", "-o", "json", "summarise this"]);
    let peakKb = 0;
    const watch = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${ion.child.pid}/status`, "utf8"));
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      } catch {
        // exited between two looks: the last reading stands
      }
    }, 5);
    const chunk = new TextEncoder().encode("0123456789abcdef\n".repeat(65_536 / 17));
    const total = 300 * 2 ** 20;
    let written = 0;
    let exited = false;
    void ion.done.then(() => {
      exited = true;
    });
    try {
      while (written < total && !exited) {
        ion.child.stdin.write(chunk);
        await ion.child.stdin.flush();
        written += chunk.byteLength;
      }
    } catch (err) {
      // ion closed its end once it had read enough: the write fails with EPIPE
      expect(String(err)).toMatch(/EPIPE|closed|broken/i);
    }
    const code = await ion.done;
    clearInterval(watch);
    expect(code).toBe(64);
    expect(written).toBeLessThan(total);
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb * 1024).toBeLessThan(150 * 2 ** 20);
    expect(server.requests.length).toBe(before);
    expect(ion.seen.stderr).toMatch(
      /^ion: stdin holds more than 1\.5 MB of text, over 128k tokens; openai\/gpt-4o-mini takes 128k/,
    );
    const result = JSON.parse(ion.seen.stdout) as { subtype: string; errors: string[] };
    expect(result.subtype).toBe("error_during_execution");
    expect(result.errors[0]).toContain("takes 128k");
  }, 60_000);
});

describe("stdin that is a file", () => {
  test("a file is read whole when it fits, and refused unread when it is larger than the window could take", async () => {
    using box = await configured(20_000);
    const small = `${box.root}/prompt.txt`;
    await Bun.write(small, "what is 6 × 7?\n");
    server.enqueueReply("openai", { text: "42" });
    const fits = Bun.spawn([...ionCommand(), "run", "-o", "json"], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: Bun.file(small),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(fits.stdout).text(), fits.exited]);
    expect(code).toBe(0);
    expect((JSON.parse(out) as { result: string }).result).toBe("42");

    const before = server.requests.length;
    const big = `${box.root}/big.txt`;
    await Bun.write(big, "x".repeat(300_000)); // over 20 000 tokens × 12 bytes
    const refused = Bun.spawn([...ionCommand(), "run", "-o", "json"], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: Bun.file(big),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [err, refusedCode] = await Promise.all([new Response(refused.stderr).text(), refused.exited]);
    expect(refusedCode).toBe(64);
    expect(err).toMatch(/^ion: stdin holds more than .* openai\/gpt-4o-mini takes 20k/);
    expect(server.requests.length).toBe(before);
  });

  test("a file that says 0 bytes and still holds text (/proc) is read to its end; /dev/null is no input", async () => {
    using box = await configured(20_000);
    server.enqueueReply("openai", { text: "noted" });
    const proc = Bun.spawn([...ionCommand(), "run", "-o", "json", "summarise this"], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: Bun.file("/proc/self/status"),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect((JSON.parse(out) as { result: string }).result).toBe("noted");
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("VmRSS");

    const nothing = Bun.spawn([...ionCommand(), "run", "-o", "json"], {
      cwd: box.workspace,
      env: box.env(env),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [err, nothingCode] = await Promise.all([new Response(nothing.stderr).text(), nothing.exited]);
    expect(nothingCode).toBe(64);
    expect(err).toStartWith("ion: no prompt");
  });
});
