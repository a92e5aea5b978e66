/**
 * The hand-written part of the recall-quality dataset (bench/data/memory-eval.json): facts a developer
 * told ion over ~40 sessions on three projects — harbor (a TypeScript API on Postgres), tidepool (a
 * Rust CLI) and a personal blog — each with the answer ion gave, the tool outcomes of that turn, and
 * the questions a later session asks about it. Some questions use other words than the fact
 * (`paraphrase`), some ask about a fact a later session changed (`newer`: only the newer fact counts).
 * Everything else in the dataset is chatter (memory-eval-chatter.ts) that shares their vocabulary.
 */

export type QueryKind = "keyword" | "paraphrase" | "newer";

export interface FactQuery {
  text: string;
  kind: QueryKind;
  /** Keys of the facts that answer it (default: the fact it is written under). */
  facts?: string[];
}

export interface Fact {
  key: string;
  /** 0-based session it is said in. */
  session: number;
  user: string;
  tools?: string[];
  assistant: string;
  queries?: FactQuery[];
}

export const FACTS: Fact[] = [
  // ── harbor: infrastructure ──────────────────────────────────────────────────────────────────────
  {
    key: "staging-db-port",
    session: 1,
    user: "heads up: harbor's staging postgres is on port 6543, not 5432 — pgbouncer sits in front of it",
    tools: ["edit_file .env.staging: ok"],
    assistant: "Got it. I set DATABASE_URL in .env.staging to port 6543 so it goes through pgbouncer.",
    queries: [
      { text: "what port is the harbor staging postgres on?", kind: "keyword" },
      {
        text: "how do I reach the pre-production database through the connection pooler?",
        kind: "paraphrase",
      },
    ],
  },
  {
    key: "pm-npm",
    session: 2,
    user: "harbor uses npm, please don't suggest yarn commands in that repo",
    assistant: "Understood — npm only for harbor. I'll use npm install / npm run.",
  },
  {
    key: "pm-pnpm",
    session: 19,
    user: "we switched harbor from npm to pnpm this week, the lockfile is pnpm-lock.yaml now",
    tools: ["bash rm package-lock.json: ok", "bash pnpm install: ok"],
    assistant: "Done: removed package-lock.json and ran pnpm install; use pnpm for harbor from now on.",
    queries: [
      { text: "which package manager does harbor use?", kind: "newer" },
      { text: "how do I install harbor's dependencies?", kind: "newer" },
    ],
  },
  {
    key: "node-20",
    session: 3,
    user: "harbor is pinned to node 20 through .nvmrc",
    assistant: "Noted, node 20 per .nvmrc for harbor.",
  },
  {
    key: "node-22",
    session: 27,
    user: "bumped harbor to node 22 — .nvmrc is updated and the CI image too",
    tools: ["read_file .nvmrc: ok", "bash node --version: ok"],
    assistant: "Confirmed: .nvmrc says 22 and the local node is v22.11.0.",
    queries: [{ text: "what node version does harbor run on?", kind: "newer" }],
  },
  {
    key: "vitest",
    session: 4,
    user: "harbor's tests run on vitest, not jest. pnpm test -- --run does a single pass without watch",
    assistant: "OK: vitest, and `pnpm test -- --run` for one pass with no watcher.",
    queries: [
      { text: "how do I run the test suite once without watch mode?", kind: "keyword" },
      { text: "is harbor on jest or vitest?", kind: "keyword" },
    ],
  },
  {
    key: "fly-deploy",
    session: 5,
    user: "harbor deploys to fly.io — app name harbor-api-prod, primary region ams",
    assistant: "Noted: fly.io, app harbor-api-prod in ams. `fly deploy -a harbor-api-prod` ships it.",
    queries: [
      { text: "where is the production API hosted?", kind: "paraphrase" },
      { text: "what is the fly app name for harbor?", kind: "keyword" },
    ],
  },
  {
    key: "flaky-refund",
    session: 6,
    user: "the flaky one is test/orders/refund.spec.ts, it depends on wall-clock time. we wrap it in retry(2) for now",
    tools: ["bash pnpm test orders/refund: error", "bash pnpm test orders/refund: ok"],
    assistant:
      "Right, it failed then passed on rerun. I left retry(2) on refund.spec.ts and opened a TODO to fake the clock.",
    queries: [{ text: "which test keeps failing randomly?", kind: "paraphrase" }],
  },
  {
    key: "pino",
    session: 7,
    user: "harbor logs with pino; the level comes from LOG_LEVEL",
    assistant: "Got it: pino, level from LOG_LEVEL (info by default).",
    queries: [{ text: "what logger does harbor use?", kind: "paraphrase" }],
  },
  {
    key: "redis-port",
    session: 7,
    user: "local redis for harbor listens on 6380 because 6379 is taken by another project on my machine",
    tools: ["edit_file docker-compose.yml: ok"],
    assistant: "Mapped redis to 6380 in docker-compose.yml and REDIS_URL to redis://localhost:6380.",
    queries: [{ text: "which port is my local redis on?", kind: "keyword" }],
  },
  {
    key: "jwt",
    session: 8,
    user: "harbor auth: JWT access tokens live 15 minutes, refresh tokens sit in an httpOnly cookie",
    assistant: "Understood — 15-minute access JWTs, refresh token in an httpOnly cookie.",
    queries: [
      { text: "how long do access tokens last?", kind: "keyword" },
      { text: "how does the login session get renewed?", kind: "paraphrase" },
    ],
  },
  {
    key: "rate-limit",
    session: 8,
    user: "public API rate limit is 100 requests per minute per API key, counted in redis",
    assistant: "OK, 100 req/min per key with a redis counter; the middleware is src/http/rate-limit.ts.",
    queries: [{ text: "how many calls per minute can one client make?", kind: "paraphrase" }],
  },
  {
    key: "migrations",
    session: 9,
    user: "migrations are drizzle-kit. never edit a migration that has shipped — add a new one",
    tools: ["bash pnpm drizzle-kit generate: ok"],
    assistant: "Generated 0042_add_refund_reason.sql as a new migration instead of touching 0041.",
    queries: [{ text: "can I change an old migration file?", kind: "keyword" }],
  },
  {
    key: "secrets-vault",
    session: 9,
    user: "dev secrets are in the 1Password vault 'harbor-dev'; .env.local is gitignored",
    assistant: "Noted: secrets from 1Password vault harbor-dev into .env.local, which git ignores.",
    queries: [{ text: "where are the dev credentials kept?", kind: "paraphrase" }],
  },
  {
    key: "branches",
    session: 10,
    user: "main is protected. feature branches are feat/<ticket>-short-name, e.g. feat/HAR-212-refund-reason",
    assistant: "Will do: branches like feat/HAR-212-refund-reason, PRs into main.",
    queries: [{ text: "how should I name a new git branch?", kind: "keyword" }],
  },
  {
    key: "ci-actions",
    session: 10,
    user: "CI is GitHub Actions. the e2e job needs the playwright browsers cache or it times out",
    tools: ["read_file .github/workflows/ci.yml: ok"],
    assistant: "The e2e job in ci.yml restores ~/.cache/ms-playwright; without it the install takes ~6 min.",
    queries: [{ text: "which continuous integration service do we run on?", kind: "paraphrase" }],
  },
  {
    key: "oncall-priya",
    session: 11,
    user: "Priya is on call this week if prod breaks",
    assistant: "Noted — Priya has the pager this week.",
  },
  {
    key: "oncall-tomas",
    session: 12,
    user: "swap: Tomás is on call this week instead of Priya, she's out sick",
    assistant: "Updated: Tomás is on call this week, not Priya.",
    queries: [{ text: "who is on call this week?", kind: "newer" }],
  },
  {
    key: "econnrefused",
    session: 13,
    user: "bash pnpm test gives ECONNREFUSED 127.0.0.1:5432 again",
    tools: [
      "bash pnpm test: error",
      "bash docker compose ps: ok",
      "bash docker compose up -d db: ok",
      "bash pnpm test: ok",
    ],
    assistant: "The db container wasn't running. After `docker compose up -d db` all 412 tests pass.",
    queries: [{ text: "tests cannot connect to postgres, what fixes it?", kind: "paraphrase" }],
  },
  {
    key: "uploads-s3",
    session: 14,
    user: "user uploads go to the S3 bucket harbor-uploads-eu",
    assistant: "OK, uploads → s3://harbor-uploads-eu.",
  },
  {
    key: "uploads-r2",
    session: 31,
    user: "we moved file uploads off S3 to Cloudflare R2, bucket harbor-files",
    tools: ["edit_file src/storage/client.ts: ok", "bash pnpm test storage: ok"],
    assistant: "Switched the storage client to the R2 endpoint with bucket harbor-files; storage tests pass.",
    queries: [{ text: "where do user uploads get stored?", kind: "newer" }],
  },
  {
    key: "open-orders-index",
    session: 15,
    user: "GET /orders?status=open is slow, like 2s",
    tools: [
      "bash psql -c 'explain analyze select ...': ok",
      "write_file drizzle/0043_orders_status_idx.sql: ok",
    ],
    assistant:
      "It was a seq scan: no index on orders(status, created_at). Migration 0043 adds it; the query now takes 9 ms.",
    queries: [{ text: "why was listing open orders slow?", kind: "keyword" }],
  },
  {
    key: "iso-dates",
    session: 16,
    user: "always ISO 8601 dates in logs and API responses, UTC",
    assistant: "Agreed: ISO 8601 in UTC everywhere, e.g. 2026-10-02T14:03:00Z.",
    queries: [{ text: "what date format should the API return?", kind: "keyword" }],
  },
  {
    key: "sentry",
    session: 17,
    user: "errors go to Sentry project harbor-api; it pages on-call after 20 events in 5 minutes",
    assistant: "Noted: Sentry harbor-api, paging at 20 events / 5 min.",
    queries: [{ text: "where can I see production exceptions?", kind: "paraphrase" }],
  },
  {
    key: "unleash",
    session: 18,
    user: "feature flags are in Unleash; the new checkout is behind checkout-v2",
    assistant: "Got it — the new checkout flow checks the checkout-v2 flag in Unleash.",
    queries: [{ text: "which flag guards the new checkout?", kind: "keyword" }],
  },
  {
    key: "lint-eslint",
    session: 3,
    user: "harbor lints with eslint and formats with prettier",
    assistant: "OK: eslint + prettier in harbor.",
  },
  {
    key: "lint-biome",
    session: 24,
    user: "we dropped eslint and prettier in harbor, biome does lint and format now",
    tools: ["bash pnpm biome check .: ok"],
    assistant: "Right, biome check is clean. I'll run biome instead of eslint from now on.",
    queries: [{ text: "which linter does harbor use?", kind: "newer" }],
  },
  {
    key: "cents",
    session: 20,
    user: "money is always integer cents in harbor, never floats",
    assistant: "Understood: amounts as integer cents (amount_cents), no floating point.",
    queries: [{ text: "how are prices represented?", kind: "paraphrase" }],
  },
  {
    key: "python-uv",
    session: 21,
    user: "the data scripts in harbor/scripts use uv with python 3.12",
    tools: ["bash uv sync: ok"],
    assistant: "uv sync worked; run them with `uv run scripts/backfill.py`.",
    queries: [{ text: "how do I set up the python scripts?", kind: "keyword" }],
  },
  {
    key: "stripe-webhooks",
    session: 22,
    user: "stripe webhooks hit /webhooks/stripe. signing secret is STRIPE_WEBHOOK_SECRET; locally use stripe listen",
    assistant:
      "Right: `stripe listen --forward-to localhost:4100/webhooks/stripe` and put the whsec in STRIPE_WEBHOOK_SECRET.",
    queries: [{ text: "how do I test payment webhooks on my machine?", kind: "keyword" }],
  },
  {
    key: "bullmq",
    session: 23,
    user: "background jobs run on BullMQ over redis: queues emails, invoices, exports",
    assistant: "Noted — BullMQ queues emails, invoices and exports; workers start from src/jobs/worker.ts.",
    queries: [{ text: "what processes async work in harbor?", kind: "paraphrase" }],
  },
  {
    key: "email-sendgrid",
    session: 11,
    user: "transactional email goes through SendGrid",
    assistant: "OK, SendGrid for transactional mail.",
  },
  {
    key: "email-postmark",
    session: 29,
    user: "we replaced SendGrid with Postmark for transactional email, key is POSTMARK_TOKEN",
    tools: ["edit_file src/mail/send.ts: ok", "bash pnpm test mail: ok"],
    assistant: "The mailer now calls Postmark with POSTMARK_TOKEN; mail tests pass.",
    queries: [{ text: "which service sends our transactional emails?", kind: "newer" }],
  },
  {
    key: "latency-budget",
    session: 25,
    user: "our p95 latency budget for the API is 200 ms",
    assistant: "Noted: p95 ≤ 200 ms for API endpoints.",
    queries: [{ text: "what is our response time target?", kind: "paraphrase" }],
  },
  {
    key: "staging-url-old",
    session: 6,
    user: "staging lives at staging.harbor.dev",
    assistant: "OK — staging.harbor.dev.",
  },
  {
    key: "staging-url-new",
    session: 33,
    user: "staging moved to harbor-staging.fly.dev, the old staging.harbor.dev is gone",
    tools: ["bash curl -sI https://harbor-staging.fly.dev/health: ok"],
    assistant: "harbor-staging.fly.dev/health answers 200. I replaced the old host in the README.",
    queries: [{ text: "what's the staging URL?", kind: "newer" }],
  },
  {
    key: "mailpit",
    session: 26,
    user: "local dev uses docker compose with db, redis and mailpit",
    assistant: "Right; mailpit's web UI is on localhost:8025 to read the mails the app sends.",
    queries: [{ text: "how can I see the emails sent in development?", kind: "paraphrase" }],
  },
  {
    key: "timestamptz",
    session: 26,
    user: "timestamps in the database are timestamptz stored in UTC",
    assistant: "Understood: timestamptz, UTC.",
    queries: [{ text: "how are times saved in postgres?", kind: "paraphrase" }],
  },
  {
    key: "linear",
    session: 28,
    user: "tickets live in Linear, team key HAR",
    assistant: "Noted: Linear, HAR-123 style ids.",
    queries: [{ text: "where do we track issues?", kind: "paraphrase" }],
  },
  {
    key: "lefthook",
    session: 28,
    user: "lefthook runs biome and tsc on pre-commit",
    assistant: "OK; a commit that fails biome or tsc is stopped by lefthook.",
    queries: [{ text: "what runs before each commit?", kind: "keyword" }],
  },
  {
    key: "renovate",
    session: 30,
    user: "renovate opens dependency PRs on Mondays and automerges patch updates",
    assistant: "Got it — Monday renovate PRs, patches automerged.",
    queries: [{ text: "how are package upgrades handled?", kind: "paraphrase" }],
  },
  {
    key: "billing-owner",
    session: 32,
    user: "Priya owns the billing module, ask her about anything invoice related",
    assistant: "Noted: Priya for billing and invoices.",
    queries: [{ text: "who knows the billing code best?", kind: "keyword" }],
  },
  {
    key: "dev-port-3000",
    session: 4,
    user: "harbor's dev server runs on 3000",
    assistant: "OK, localhost:3000 for harbor.",
  },
  {
    key: "dev-port-4100",
    session: 22,
    user: "I changed harbor's dev port to 4100, 3000 clashes with harbor-web",
    tools: ["edit_file .env.example: ok"],
    assistant: "Updated PORT=4100 in .env.example; harbor-web keeps 3000.",
    queries: [{ text: "which port does the harbor dev server use?", kind: "newer" }],
  },
  {
    key: "harbor-web",
    session: 12,
    user: "the dashboard frontend is its own repo, harbor-web — React with Vite",
    assistant: "Got it: harbor-web (React + Vite) is separate from the API.",
    queries: [{ text: "where is the dashboard UI code?", kind: "keyword" }],
  },
  {
    key: "api-versions",
    session: 16,
    user: "the public API is versioned in the path, /v2 is current and /v1 sunsets on 2026-12-31",
    assistant: "Noted: /v2 current, /v1 sunset 2026-12-31.",
    queries: [{ text: "when is version 1 of the API retired?", kind: "paraphrase" }],
  },
  {
    key: "docs-mkdocs",
    session: 34,
    user: "harbor's docs are markdown in docs/, published with mkdocs-material",
    tools: ["bash mkdocs build --strict: ok"],
    assistant: "mkdocs build --strict passes; the site is in site/.",
    queries: [{ text: "how is the documentation site built?", kind: "keyword" }],
  },
  // ── tidepool (Rust CLI) ──────────────────────────────────────────────────────────────────────────
  {
    key: "clap",
    session: 5,
    user: "tidepool uses clap with the derive macros, subcommands are in src/cli/",
    assistant: "OK — clap derive, one module per subcommand under src/cli/.",
    queries: [{ text: "how are command-line flags parsed in tidepool?", kind: "paraphrase" }],
  },
  {
    key: "msrv-174",
    session: 8,
    user: "tidepool's MSRV is 1.74",
    assistant: "Noted, MSRV 1.74 — no features newer than that.",
  },
  {
    key: "msrv-180",
    session: 30,
    user: "raised tidepool's MSRV to 1.80 so we can use LazyLock",
    tools: ["edit_file Cargo.toml: ok", "bash cargo +1.80 check: ok"],
    assistant: 'rust-version = "1.80" in Cargo.toml and cargo +1.80 check passes.',
    queries: [{ text: "what is tidepool's MSRV now?", kind: "newer" }],
  },
  {
    key: "cargo-dist",
    session: 14,
    user: "tidepool releases go through cargo-dist: push a vX.Y.Z tag and the workflow builds the binaries",
    assistant: "Right: tag v0.9.0, push, and cargo-dist's workflow uploads the archives.",
    queries: [{ text: "how do I cut a tidepool release?", kind: "keyword" }],
  },
  {
    key: "tidepool-config",
    session: 17,
    user: "tidepool reads ~/.config/tidepool/config.toml and TIDEPOOL_CONFIG overrides the path",
    assistant: "Noted: config.toml under ~/.config/tidepool, TIDEPOOL_CONFIG to point elsewhere.",
    queries: [{ text: "where does tidepool look for its settings file?", kind: "paraphrase" }],
  },
  {
    key: "insta",
    session: 20,
    user: "tidepool snapshot tests use insta",
    tools: ["bash cargo test: error", "bash cargo insta review: ok"],
    assistant: "Two snapshots changed with the new table layout; I accepted them with cargo insta review.",
    queries: [{ text: "how do I update snapshot tests in the rust CLI?", kind: "keyword" }],
  },
  {
    key: "tidepool-json",
    session: 23,
    user: "tidepool prints a table by default, --json is for scripts",
    assistant: "Right: `tidepool ls --json` for machine-readable output.",
    queries: [{ text: "how do I get machine-readable output from tidepool?", kind: "keyword" }],
  },
  {
    key: "sync-fsync",
    session: 25,
    user: "tidepool sync takes 12 seconds on my repo",
    tools: [
      "bash cargo flamegraph -- sync: ok",
      "edit_file src/sync/writer.rs: ok",
      "bash cargo test sync: ok",
    ],
    assistant: "It fsynced every file. Batching the writes and syncing once brought sync from 12 s to 1.4 s.",
    queries: [{ text: "why was tidepool sync slow?", kind: "keyword" }],
  },
  // ── the blog ─────────────────────────────────────────────────────────────────────────────────────
  {
    key: "blog-astro",
    session: 15,
    user: "my blog is Astro, deployed on Netlify from the main branch",
    assistant: "Got it: Astro site, Netlify builds main.",
    queries: [{ text: "what static site generator powers my blog?", kind: "paraphrase" }],
  },
  // ── preferences and the person ──────────────────────────────────────────────────────────────────
  {
    key: "commit-style",
    session: 2,
    user: "I like small commits with imperative subject lines under 60 characters",
    assistant: "Will do: small commits, imperative subjects under 60 chars.",
    queries: [{ text: "how should I word git commit messages?", kind: "keyword" }],
  },
  {
    key: "indent",
    session: 3,
    user: "2 spaces in typescript, never tabs. rust stays on rustfmt defaults",
    assistant: "Understood: 2-space indentation in TS, rustfmt defaults in Rust.",
    queries: [{ text: "tabs or spaces for typescript?", kind: "keyword" }],
  },
  {
    key: "comments",
    session: 13,
    user: "don't write comments that restate the code. say why, not what",
    assistant: "Agreed — comments only for the reasons the code can't show.",
    queries: [{ text: "what's my rule about code comments?", kind: "keyword" }],
  },
  {
    key: "neovim",
    session: 1,
    user: "I'm on neovim with lazy.nvim, leader is space",
    assistant: "Noted: neovim + lazy.nvim, <space> leader.",
    queries: [{ text: "which text editor do I use?", kind: "paraphrase" }],
  },
  {
    key: "standup",
    session: 0,
    user: "I'm in Lisbon; standup is at 10:00 my time every weekday",
    assistant: "Got it — Lisbon time, daily standup at 10:00.",
    queries: [{ text: "when is the daily standup?", kind: "keyword" }],
  },
  {
    key: "ask-destructive",
    session: 0,
    user: "if you're unsure, ask me before anything destructive like rm -rf or git push --force",
    assistant: "Will do: I'll ask before deleting files or force-pushing.",
    queries: [{ text: "should you confirm before removing things?", kind: "paraphrase" }],
  },
  {
    key: "short-answers",
    session: 0,
    user: "answer me in short bullet points, no long intros please",
    assistant: "Sure — short bullets from now on.",
    queries: [{ text: "how do I like replies formatted?", kind: "paraphrase" }],
  },
  {
    key: "dog-miso",
    session: 18,
    user: "brb, my dog Miso just chewed through my headphone cable",
    assistant: "Oh no — good luck with Miso. I'll be here.",
    queries: [{ text: "what's my dog called?", kind: "keyword" }],
  },
  {
    key: "no-caffeine",
    session: 21,
    user: "no coffee for me this month, I'm off caffeine, just tea",
    assistant: "Good luck with the tea month!",
    queries: [{ text: "what am I drinking instead of coffee these days?", kind: "keyword" }],
  },
  {
    key: "learning-go",
    session: 35,
    user: "on the side I'm learning Go, working through gophercises in the evenings",
    assistant: "Nice — gophercises are a good way in. Happy to review any of them.",
    queries: [{ text: "which new programming language am I picking up?", kind: "paraphrase" }],
  },
  {
    key: "named-exports",
    session: 24,
    user: "named exports only, no default exports",
    assistant: "OK: named exports everywhere.",
    queries: [{ text: "default exports or named ones?", kind: "keyword" }],
  },
  {
    key: "climbing",
    session: 36,
    user: "went bouldering at the gym on saturday, my forearms are dead today",
    assistant: "Ha, take it easy on the keyboard then.",
    queries: [{ text: "what sport do I do at the weekend?", kind: "paraphrase" }],
  },
  {
    key: "async-updates",
    session: 37,
    user: "I prefer async written updates to meetings whenever possible",
    assistant: "Noted — written async updates over meetings.",
    queries: [{ text: "do I like meetings?", kind: "keyword" }],
  },
  {
    key: "vacation",
    session: 38,
    user: "I'm off from December 20 to January 6, Tomás covers harbor reviews",
    assistant: "Noted: away Dec 20 – Jan 6, Tomás reviews harbor PRs meanwhile.",
    queries: [{ text: "who reviews harbor pull requests while I'm on holiday?", kind: "paraphrase" }],
  },
];
