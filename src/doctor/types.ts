/** One line of `ion doctor`, and one element of `ion doctor --json`. */
export interface Check {
  /** Stable for scripts: `config`, `keys`, `provider:openai`, `terminal`, `data-dir`, `sandbox`, `mcp:NAME`, `version`. */
  id: string;
  /** ok ✓, warn ! (works, but worth a look), fail ✗ (something will not work). */
  status: "ok" | "warn" | "fail";
  /** What was checked: `config`, `provider openai`. */
  title: string;
  /** What was found, one line. */
  detail: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

export function check(
  id: string,
  title: string,
  status: Check["status"],
  detail: string,
  fix?: string,
): Check {
  return fix === undefined ? { id, status, title, detail } : { id, status, title, detail, fix };
}
