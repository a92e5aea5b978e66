/**
 * `--fallback-model provider/model` (Claude Code's name): when the model is overloaded (529, or 503,
 * after the retries) or unknown to the provider, the run continues on the fallback model — once: every
 * later request of the run goes there too. It wraps the stream, so compaction summaries follow along,
 * and it keeps usage per model so the result's cost and `modelUsage` name both.
 */
import { IonError } from "../errors.ts";
import type { ProviderError, StreamEvent, StreamFn, StreamRequest, Usage } from "../providers/types.ts";
import { addUsage, emptyUsage } from "../providers/types.ts";
import { modelUsageEntry, type RunResult } from "./events.ts";
import { type ModelTarget, resolveTarget } from "./session-setup.ts";

const label = (target: ModelTarget) => `${target.provider.id}/${target.model}`;

/**
 * The fallback's provider and model, resolved before any request: an unusable id is a usage error, and
 * so is the model itself (it would only fail the same way again).
 */
export async function resolveFallback(
  loaded: Parameters<typeof resolveTarget>[0],
  spec: string,
  env: Parameters<typeof resolveTarget>[2],
  primary: ModelTarget,
): Promise<ModelTarget> {
  let fallback: ModelTarget;
  try {
    fallback = await resolveTarget(loaded, spec, env, true);
  } catch (err) {
    if (!(err instanceof IonError)) throw err;
    // The hint is written for -m and config; the fix here is the flag's own value.
    throw new IonError("usage", `--fallback-model: ${err.message}`, {
      hint: "give it as provider/model, e.g. --fallback-model openai/gpt-4o-mini (`ion models` lists them)",
      cause: err,
    });
  }
  if (fallback.provider.id === primary.provider.id && fallback.model === primary.model)
    throw new IonError("usage", `--fallback-model must differ from the model (${label(primary)})`);
  return fallback;
}

function fallsBack(error: ProviderError): boolean {
  return (
    error.kind === "overloaded" ||
    (error.kind === "server" && error.status === 503) ||
    error.kind === "model_not_found"
  );
}

/** Whether the stream has said anything the loop keeps: after that, a failure is the run's. */
function isContent(event: StreamEvent): boolean {
  return event.type !== "retry" && event.type !== "notice" && event.type !== "usage";
}

export class ModelFallback {
  private switched = false;
  private readonly spent = new Map<ModelTarget, Usage>();

  constructor(
    private readonly primary: ModelTarget,
    private readonly fallback: ModelTarget,
    private readonly inner: StreamFn,
    private readonly notice: (line: string) => void,
  ) {}

  readonly stream: StreamFn = (request) => this.run(request);

  /** The run's cost so far, each model's usage at its own price (the loop's `price`). */
  readonly price = (usage: Usage): number | null => {
    if (!this.switched) return this.primary.facts.price(usage);
    let total = 0;
    for (const [target, used] of this.spent) {
      const cost = target.facts.price(used);
      if (cost === null) return null;
      total += cost;
    }
    return total;
  };

  private async *run(request: StreamRequest): AsyncGenerator<StreamEvent> {
    if (this.switched) {
      const { capabilities } = this.fallback.facts;
      const { modelInfo: _primaryInfo, ...rest } = request;
      const moved = { ...rest, provider: this.fallback.provider, model: this.fallback.model };
      yield* this.counted(this.fallback, capabilities ? { ...moved, modelInfo: capabilities } : moved);
      return;
    }
    let said = false;
    for await (const event of this.counted(this.primary, request)) {
      if (event.type === "error" && !said && !request.signal.aborted && fallsBack(event.error)) {
        this.switched = true;
        this.notice(
          `${event.error.message}; continuing on ${label(this.fallback)} (--fallback-model)`.replace(
            /\n/g,
            " ",
          ),
        );
        yield* this.run(request);
        return;
      }
      if (isContent(event)) said = true;
      yield event;
    }
  }

  private async *counted(target: ModelTarget, request: StreamRequest): AsyncGenerator<StreamEvent> {
    let usage: Usage | undefined;
    try {
      for await (const event of this.inner(request)) {
        if (event.type === "usage" || event.type === "done") usage = event.usage;
        if (event.type === "error" && event.usage) usage = event.usage;
        yield event;
      }
    } finally {
      if (usage) this.spent.set(target, addUsage(this.spent.get(target) ?? emptyUsage(), usage));
    }
  }

  /**
   * After a fallback the result names the model that answered, and `modelUsage` both. Its cost is the
   * loop's: already priced with `price`, each model's usage at its own price (child agents' included).
   */
  finish(result: RunResult): RunResult {
    if (!this.switched) return result;
    // The loop's own entry is replaced by one per model; a child agent's entries stay.
    const { [this.primary.model]: _own, ...modelUsage } = result.modelUsage;
    for (const target of [this.primary, this.fallback]) {
      const used = this.spent.get(target) ?? emptyUsage();
      // Keyed by model id as Claude Code does, unless both providers use the same id.
      const key = this.primary.model === this.fallback.model ? label(target) : target.model;
      modelUsage[key] = modelUsageEntry(used, target.facts.price(used), {
        provider: target.provider.id,
        contextWindow: target.facts.contextWindow,
        maxOutputTokens: target.facts.maxOutput,
      });
    }
    return {
      ...result,
      provider: this.fallback.provider.id,
      model: this.fallback.model,
      modelUsage,
    };
  }
}
