import type { AgentTool } from "./types.ts";

/**
 * The tools of one session, asked before every model request: tools come and go while it runs (an
 * MCP server that connects late or changes its list, a tool that needs an index first), and a tool can
 * be *deferred* — known by name and description, but its schema not sent until it is activated (what
 * lazy loading of many MCP tools needs). Tools holding resources are closed with the session.
 *
 * It holds tools as they are given: registering the built-ins imports none of their modules.
 */

/** How a deferred tool is listed before it is activated (a prompt or a search tool may name it). */
export interface DeferredTool {
  name: string;
  description: string;
}

/** A tool whose `close()` failed when the registry closed. */
export interface ToolCloseFailure {
  name: string;
  error: unknown;
}

/** What the loop is given: a fixed list, or a function it asks for the current list before each request. */
export type ToolSource = readonly AgentTool[] | (() => readonly AgentTool[]);

/** The tools offered now. */
export function currentTools(source: ToolSource): readonly AgentTool[] {
  return typeof source === "function" ? source() : source;
}

interface Entry {
  tool: AgentTool;
  deferred: boolean;
}

export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(tools: Iterable<AgentTool> = []) {
    for (const tool of tools) this.add(tool);
  }

  /**
   * Registers a tool, offered from the next model request on (deferred: listed, not offered, until
   * `activate`). Two tools of one name would leave the model unable to choose: that throws.
   */
  add(tool: AgentTool, options: { deferred?: boolean } = {}): void {
    const name = tool.spec.name;
    if (this.closed) throw new Error(`cannot add the tool ${name}: its session is closed`);
    if (this.entries.has(name)) throw new Error(`a tool named ${name} is already registered`);
    this.entries.set(name, { tool, deferred: options.deferred === true });
  }

  /** Offers a deferred tool from the next request on. False when no tool of that name is registered. */
  activate(name: string): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    entry.deferred = false;
    return true;
  }

  /** Unregisters a tool and closes it (a close that fails rejects). False when there was none. */
  async remove(name: string): Promise<boolean> {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    await entry.tool.close?.();
    return true;
  }

  /** A registered tool, deferred or not. */
  get(name: string): AgentTool | undefined {
    return this.entries.get(name)?.tool;
  }

  /** The tools sent with the next request, in registration order (deferred ones left out). */
  offered(): AgentTool[] {
    return [...this.entries.values()].filter((e) => !e.deferred).map((e) => e.tool);
  }

  /** The deferred tools by name and description. */
  deferred(): DeferredTool[] {
    return [...this.entries.values()]
      .filter((e) => e.deferred)
      .map(({ tool }) => ({ name: tool.spec.name, description: tool.spec.description }));
  }

  /**
   * Closes every tool once (at the same time: one slow server does not hold up the others) and
   * empties the registry. Resolves with the closes that failed, for the caller to report.
   */
  async close(): Promise<ToolCloseFailure[]> {
    if (this.closed) return [];
    this.closed = true;
    const tools = [...this.entries.values()].map((e) => e.tool);
    this.entries.clear();
    const settled = await Promise.allSettled(tools.map(async (tool) => tool.close?.()));
    return settled.flatMap((outcome, i) =>
      outcome.status === "rejected" ? [{ name: tools[i]!.spec.name, error: outcome.reason }] : [],
    );
  }
}
