import type { ApproveFn } from "../tools/types.ts";
import type { ApprovalPrompt } from "../ui/approval.ts";

/**
 * The approver of `ion run` and `ion chat` on a terminal: yes / no / always for each write or execute
 * call in mode ask, with what the call would do (an edit's diff) shown before the question. The
 * preview, and the tools' diff code, load with the first question.
 */
export async function terminalApprover(
  prompt: ApprovalPrompt,
  cwd: string,
  color: boolean,
): Promise<ApproveFn> {
  const { createApprover } = await import("../ui/approval.ts");
  return createApprover(prompt, async (name, input) => {
    const [{ previewCall }, { createStyle }] = await Promise.all([
      import("../ui/preview.ts"),
      import("../ui/style.ts"),
    ]);
    return previewCall(name, input, { cwd, style: createStyle(color) });
  });
}
