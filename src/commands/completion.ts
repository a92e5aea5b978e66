import { type ArgsDef, defineCommand } from "citty";
import { IonError } from "../errors.ts";

/** Flag definitions only: the tree and the script writers load when a script is asked for. */
export const completionArgs = {
  shell: { type: "positional", required: false, description: "bash | zsh | fish" },
} as const satisfies ArgsDef;

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/**
 * The hidden helper the scripts call while completing: `ion completion --words KIND [PREFIX]`. Not
 * declared in `completionArgs`, so `--help` does not show it.
 */
const WORDS_FLAG = "--words";

function usageError(): IonError {
  return new IonError(
    "usage",
    "ion completion needs a shell: bash, zsh or fish (e.g. `ion completion bash`)",
  );
}

async function printScript(shell: Shell): Promise<string> {
  const { COMMANDS } = await import("../cli.ts");
  const { commandTree } = await import("../completion/tree.ts");
  const root = await commandTree(COMMANDS);
  if (shell === "bash") return (await import("../completion/bash.ts")).bashScript(root);
  if (shell === "zsh") return (await import("../completion/zsh.ts")).zshScript(root);
  return (await import("../completion/fish.ts")).fishScript(root);
}

/** `ion completion bash|zsh|fish`: a completion script for that shell, generated from the command tree. */
export default defineCommand({
  meta: { name: "completion", description: "Print a shell completion script: bash, zsh or fish" },
  args: completionArgs,
  async run({ rawArgs }) {
    const { fdWriter } = await import("../util/fd-writer.ts");
    const stdout = fdWriter("stdout");
    if (rawArgs[0] === WORDS_FLAG) {
      if (rawArgs.length < 2 || rawArgs.length > 3)
        throw new IonError("usage", "usage: ion completion --words KIND [PREFIX]");
      const { completionWords, wordLines } = await import("../completion/words.ts");
      stdout.write(wordLines(await completionWords(rawArgs[1]!, rawArgs[2] ?? "")));
      return;
    }
    const given = rawArgs.filter((a) => a !== "--");
    const shell = given[0];
    if (given.length !== 1 || !SHELLS.includes(shell as Shell)) throw usageError();
    stdout.write(await printScript(shell as Shell));
  },
});
