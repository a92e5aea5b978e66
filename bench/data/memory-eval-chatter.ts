/**
 * The chatter around the facts of the recall dataset: routine turns of the same developer on the same
 * projects — test runs, builds, reviews, debugging questions, small talk — written to share the facts'
 * vocabulary (ports, tests, postgres, deploys, redis, config) without answering their questions. A
 * turn is a user line, its tool outcomes and ion's answer; `{slot}` words are filled by the seeded
 * generator, so repeated kinds of turn differ in their details as real ones do.
 */

export interface ChatterTurn {
  user: string;
  tools?: string[];
  assistant: string;
}

export const SLOTS: Record<string, readonly string[]> = {
  module: [
    "orders",
    "invoices",
    "auth",
    "users",
    "storage",
    "mail",
    "webhooks",
    "reports",
    "search",
    "billing",
  ],
  file: [
    "src/http/server.ts",
    "src/orders/service.ts",
    "src/auth/session.ts",
    "src/db/pool.ts",
    "src/jobs/worker.ts",
    "src/invoices/pdf.ts",
    "src/users/routes.ts",
    "src/search/query.ts",
    "src/reports/export.ts",
    "src/config/env.ts",
  ],
  rsfile: ["src/sync/mod.rs", "src/cli/ls.rs", "src/store/index.rs", "src/remote/http.rs", "src/main.rs"],
  count: ["3", "7", "12", "18", "24", "41", "58", "96", "130", "212"],
  error: [
    "TypeError: Cannot read properties of undefined (reading 'id')",
    "Error: connect ETIMEDOUT",
    "ZodError: Expected string, received null",
    "SyntaxError: Unexpected token '<' in JSON",
    "error TS2345: Argument of type 'string | undefined' is not assignable",
    "Error: deadlock detected",
  ],
  rserror: [
    "error[E0502]: cannot borrow `self.entries` as mutable",
    "error[E0308]: mismatched types",
    "error: lifetime may not live long enough",
    "thread 'main' panicked at src/sync/mod.rs: called `Option::unwrap()` on a `None` value",
  ],
  pkg: [
    "zod",
    "fastify",
    "drizzle-orm",
    "pino",
    "vitest",
    "undici",
    "bullmq",
    "@aws-sdk/client-s3",
    "date-fns",
  ],
  crate: ["tokio", "serde", "reqwest", "anyhow", "walkdir", "indicatif", "tabled"],
  pr: ["#481", "#492", "#503", "#517", "#526", "#534", "#548"],
  ticket: ["HAR-188", "HAR-203", "HAR-212", "HAR-230", "HAR-241", "HAR-257"],
  weekday: ["monday", "tuesday", "wednesday", "thursday", "friday"],
  ms: ["38", "74", "120", "310", "850", "1200"],
};

/** Kinds of turn that recur, filled from SLOTS each time. */
export const TEMPLATES: readonly ChatterTurn[] = [
  {
    user: "run the {module} tests",
    tools: ["bash pnpm test {module}: ok"],
    assistant: "All {count} tests in {module} pass.",
  },
  {
    user: "can you run the tests for {module}? something broke after the rebase",
    tools: ["bash pnpm test {module}: error", "read_file {file}: ok"],
    assistant: "Two failures in {module}: {error}. It comes from {file}; the rebase dropped a null check.",
  },
  {
    user: "fix that",
    tools: ["edit_file {file}: ok", "bash pnpm test {module}: ok"],
    assistant: "Restored the null check in {file}; the {module} tests pass again.",
  },
  {
    user: "bash npm test says {error}",
    tools: ["bash npm test: error", "grep {module} src: ok"],
    assistant: "That comes from the {module} handler returning before the row is loaded; see {file}.",
  },
  {
    user: "typecheck please",
    tools: ["bash pnpm tsc --noEmit: error"],
    assistant: "One error in {file}: {error}. Narrowing the value first fixes it.",
  },
  {
    user: "build tidepool",
    tools: ["bash cargo build: error"],
    assistant: "The build fails in {rsfile}: {rserror}.",
  },
  {
    user: "try again after my change to {rsfile}",
    tools: ["bash cargo build: ok", "bash cargo test: ok"],
    assistant: "cargo build and cargo test pass now ({count} tests).",
  },
  {
    user: "what does {file} do?",
    tools: ["read_file {file}: ok"],
    assistant: "{file} wires the {module} routes to their service and validates the request bodies.",
  },
  {
    user: "find where we call {pkg}",
    tools: ["grep {pkg} src: ok"],
    assistant: "{pkg} is imported in {count} files; most of it is in src/{module}/.",
  },
  {
    user: "bump {pkg} to latest",
    tools: ["bash pnpm up {pkg}: ok", "bash pnpm test: ok"],
    assistant: "Updated {pkg}; the whole suite still passes.",
  },
  {
    user: "add {crate} to tidepool",
    tools: ["bash cargo add {crate}: ok", "bash cargo check: ok"],
    assistant: "Added {crate} to Cargo.toml; cargo check is clean.",
  },
  {
    user: "review PR {pr} for me",
    tools: ["bash gh pr diff {pr}: ok"],
    assistant: "PR {pr} looks fine overall; one concern: {file} swallows the error from the {module} query.",
  },
  {
    user: "write a test for the {module} edge case we found",
    tools: ["write_file test/{module}/edge.spec.ts: ok", "bash pnpm test {module}: ok"],
    assistant: "Added test/{module}/edge.spec.ts covering the empty list case; it passes.",
  },
  {
    user: "how slow is the {module} endpoint now?",
    tools: ["bash autocannon -d 10 localhost/{module}: ok"],
    assistant: "p95 is {ms} ms under 50 connections for {module}.",
  },
  {
    user: "open a ticket for the {module} bug",
    tools: ["bash linear issue create: ok"],
    assistant: "Created {ticket} for the {module} bug with the stack trace attached.",
  },
  {
    user: "what's left on {ticket}?",
    assistant: "{ticket} still needs the migration and a test for the {module} rollback path.",
  },
  {
    user: "the docker db container keeps restarting",
    tools: ["bash docker compose logs db: ok"],
    assistant:
      "The volume was created by an older postgres major version; removing the volume fixes it (you'd lose local data).",
  },
  {
    user: "lint the {module} folder",
    tools: ["bash pnpm lint src/{module}: error"],
    assistant: "{count} lint findings in src/{module}, mostly unused imports.",
  },
  {
    user: "read {rsfile} and explain the error handling",
    tools: ["read_file {rsfile}: ok"],
    assistant: "{rsfile} wraps every io error with anyhow context and bubbles it up with ?.",
  },
  {
    user: "check the logs from the last deploy",
    tools: ["bash fly logs -a harbor-api-prod: ok"],
    assistant: "Nothing alarming: one {error} from the {module} worker, retried successfully.",
  },
];

/** Turns that happen once: questions, explanations and small talk. */
export const ONE_OFFS: readonly ChatterTurn[] = [
  { user: "morning! back at it", assistant: "Morning! What are we working on today?" },
  { user: "thanks, that worked", assistant: "Glad it did." },
  { user: "ok cool", assistant: "👍" },
  { user: "brb coffee", assistant: "Sure, I'll be here." },
  { user: "lol yes exactly", assistant: "😄" },
  { user: "nice, ship it", assistant: "Merged and pushed." },
  {
    user: "hmm no, undo that",
    tools: ["bash git checkout -- .: ok"],
    assistant: "Reverted the working tree changes.",
  },
  { user: "long day. let's stop here", assistant: "Sounds good — see you tomorrow." },
  { user: "thank you!!", assistant: "Any time." },
  {
    user: "wait what",
    assistant: "Sorry, that was unclear: the test fails only when run after the auth tests.",
  },
  { user: "ok let's continue", assistant: "Next up is the pagination change." },
  { user: "perfect", assistant: "Great." },
  { user: "good night", assistant: "Good night!" },
  { user: "sorry, was in a meeting", assistant: "No problem — the build finished meanwhile, all green." },
  { user: "it's raining again in lisbon", assistant: "Good coding weather, at least." },
  { user: "ugh, monday", assistant: "Let's start with something small then." },
  {
    user: "what's the difference between a left join and an inner join again?",
    assistant:
      "An inner join keeps only rows with a match on both sides; a left join keeps every left row and fills the right side with nulls.",
  },
  {
    user: "explain what pgbouncer transaction pooling breaks",
    assistant:
      "Session state: prepared statements, SET, advisory locks and LISTEN don't survive between transactions.",
  },
  {
    user: "why would a postgres query ignore my index?",
    assistant:
      "Usually low selectivity, stale statistics, a function on the column, or a type mismatch; run ANALYZE and check EXPLAIN.",
  },
  {
    user: "how do I see which port a process is listening on?",
    tools: ["bash ss -ltnp: ok"],
    assistant: "`ss -ltnp` lists listening TCP ports with their process; `lsof -i :PORT` for one port.",
  },
  {
    user: "what's a good default for the node http keep-alive timeout behind fly's proxy?",
    assistant:
      "Set keepAliveTimeout above the proxy's idle timeout, e.g. 65 s, and headersTimeout a bit higher.",
  },
  {
    user: "is it ok to store refresh tokens in localStorage?",
    assistant:
      "Better not: any XSS can read localStorage. An httpOnly, secure, same-site cookie is the usual choice.",
  },
  {
    user: "how do rust lifetimes in struct fields work, quickly",
    assistant:
      "A struct holding a reference needs a lifetime parameter so the compiler knows it can't outlive what it borrows.",
  },
  {
    user: "cargo says a crate is yanked, should I worry?",
    assistant:
      "Only if your lockfile pins it: existing locks keep working, new resolutions skip it. Update when you can.",
  },
  {
    user: "what's the redis command to see memory usage?",
    assistant: "`INFO memory` for the server, `MEMORY USAGE key` for one key.",
  },
  {
    user: "summarize what we did today",
    assistant:
      "Fixed the {module} null check, added an edge-case test, bumped two dependencies and reviewed a PR.",
  },
  {
    user: "how do I squash the last 3 commits?",
    assistant: "`git rebase -i HEAD~3`, mark the last two as squash (s), then edit the message.",
  },
  {
    user: "what's the vitest equivalent of jest.fn()?",
    assistant: "`vi.fn()` — and `vi.mock()` for modules, `vi.useFakeTimers()` for the clock.",
  },
  {
    user: "draft a short changelog entry for the refund reason feature",
    assistant: "- Refunds now record a reason (HAR-212); the reason is shown on the invoice PDF.",
  },
  {
    user: "which http status for a duplicate email on signup?",
    assistant: "409 Conflict is the common choice; 422 if you treat it as a validation error.",
  },
  {
    user: "what does ECONNRESET mean exactly?",
    assistant:
      "The other side closed the TCP connection abruptly (a RST), often a proxy timeout or a crashed server.",
  },
  {
    user: "can astro do incremental builds?",
    assistant:
      "Not fully; it caches some assets, and the content layer caches data between builds in newer versions.",
  },
  {
    user: "write a regex for semver tags",
    assistant: "`^v(\\d+)\\.(\\d+)\\.(\\d+)(-[0-9A-Za-z.-]+)?$`",
  },
  {
    user: "how do I profile a rust binary on linux?",
    assistant: "`cargo flamegraph` (perf under the hood), or `perf record -g` then `perf report`.",
  },
  {
    user: "should webhook handlers be idempotent?",
    assistant: "Yes: providers retry, so store the event id and skip ones already processed.",
  },
  {
    user: "what's the default postgres port again?",
    assistant: "5432.",
  },
  {
    user: "how do I make fly deploy a specific dockerfile?",
    assistant: "`fly deploy --dockerfile path/to/Dockerfile`, or set [build] dockerfile in fly.toml.",
  },
  {
    user: "my laptop fan is screaming during cargo builds",
    assistant: "Try `CARGO_BUILD_JOBS=4` or the mold linker; incremental debug builds help too.",
  },
  {
    user: "recommend a podcast for the commute",
    assistant: "Software Unscripted or Oxide and Friends are both good for long rides.",
  },
  {
    user: "what's a sensible pg pool size for a 2-cpu fly machine?",
    assistant: "Around 10 connections per instance is plenty; more just queues inside postgres.",
  },
  {
    user: "is bun ready for harbor?",
    assistant:
      "Possibly for scripts and tests; for the server I'd wait until the fastify plugins you use are verified.",
  },
  {
    user: "how to debug a hanging vitest run",
    assistant:
      "Run with `--reporter=verbose --no-file-parallelism`, and look for open handles: servers, timers, db pools.",
  },
  {
    user: "remind me what CORS preflight is",
    assistant:
      "An OPTIONS request the browser sends before a non-simple cross-origin request to ask which methods and headers are allowed.",
  },
  {
    user: "what's the rustfmt option for max line width?",
    assistant: "`max_width` in rustfmt.toml; the default is 100.",
  },
  {
    user: "tidy up the README intro",
    tools: ["read_file README.md: ok", "edit_file README.md: ok"],
    assistant: "Shortened the intro to three lines and moved the setup steps under Getting started.",
  },
  {
    user: "how do I stop git asking for my passphrase every time",
    assistant: "Add the key to ssh-agent (`ssh-add`) and set `AddKeysToAgent yes` in ~/.ssh/config.",
  },
  {
    user: "any idea why the invoice pdf fonts look wrong?",
    tools: ["read_file src/invoices/pdf.ts: ok"],
    assistant:
      "The font isn't embedded; the pdf falls back to Helvetica. Register the TTF with the renderer.",
  },
  {
    user: "what's the cleanest way to paginate in drizzle?",
    assistant:
      "Keyset pagination: `where(gt(orders.id, cursor)).orderBy(orders.id).limit(n)`; offsets get slow on big tables.",
  },
  {
    user: "watched a talk on CRDTs last night, mind blown",
    assistant: "They're great — Automerge's docs are a friendly next step.",
  },
  {
    user: "how do I check which node version CI used?",
    tools: ["bash gh run view --log: ok"],
    assistant: "The setup-node step prints it near the top of the job log.",
  },
];
