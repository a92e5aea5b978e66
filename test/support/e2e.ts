/**
 * Set-up shared by the e2e files that run ion against one fake OpenAI-wire server for the whole file.
 */
import { beforeAll } from "bun:test";
import type { FakeLLM } from "./fake-llm.ts";
import { useFakeLLM } from "./stream-helpers.ts";

export interface OpenAIServer {
  /** The file's fake server: forwards to the running one, so use it from tests and hooks only. */
  server: FakeLLM;
  /** `OPENAI_BASE_URL` and `OPENAI_API_KEY` pointing ion at the server; filled in before the file's tests. */
  env: Record<string, string>;
}

/**
 * Starts a fake LLM before the file's tests and stops it after them, with the env that sends ion's
 * `openai` provider to it with `key`, plus whatever `extra` adds for the server's URL.
 */
export function useOpenAIServer(
  key: string,
  extra: (url: string) => Record<string, string> = () => ({}),
): OpenAIServer {
  const server = useFakeLLM();
  const env: Record<string, string> = {};
  beforeAll(() => {
    Object.assign(env, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: key, ...extra(server.url) });
  });
  return { server, env };
}
