import { Eta } from "eta";
import memoryTemplate from "../../templates/memory.eta" with { type: "text" };
import systemTemplate from "../../templates/system.eta" with { type: "text" };
import { ETA_OPTIONS } from "./template.ts";

/**
 * Built-in templates compiled by eta when ion is built: agent/context.ts imports this as a Bun macro
 * (`with { type: "macro" }`), so the body of the render function is inlined as a string and a run
 * skips eta's parse of the template (~1 ms). A user's template is compiled at run time as before.
 */
export function systemTemplateBody(): string {
  return new Eta(ETA_OPTIONS).compileToString(systemTemplate);
}

/** The memory context message's template (memory/render.ts), compiled the same way. */
export function memoryTemplateBody(): string {
  return new Eta(ETA_OPTIONS).compileToString(memoryTemplate);
}
