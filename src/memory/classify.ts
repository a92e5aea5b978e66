/**
 * Whether a prompt is small talk that recall should skip: slash commands, greetings, thanks,
 * acknowledgements ("ok", "go ahead"), and anything under three words that asks nothing. A question
 * — a "?" or a leading question word — is not skipped, however short ("which port?", "why"), unless
 * it is all chatter ("ok?").
 */

/** Words that carry no topic: a prompt made only of these is chatter, whatever its length. */
const CHATTER = new Set(
  (
    "hi hello hey hiya yo howdy greetings morning evening afternoon good day night " +
    "thanks thank thx ty cheers appreciated appreciate you very much so a lot lots many " +
    "ok okay k kk fine alright all right sure yes yeah yep yup no nope nah " +
    "great cool nice perfect awesome excellent wonderful lovely brilliant sweet neat amazing " +
    "got it understood makes sense sounds that's thats this works worked " +
    "go ahead continue proceed carry on keep going do please done next " +
    "bye goodbye later see ya cya oh ah hmm wow lol haha"
  ).split(" "),
);

/** Words that open a question even without a question mark. */
const QUESTION_WORDS = new Set(
  (
    "what whats what's which who whom whose when where where's why how hows how's " +
    "explain describe remind recall remember"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;

export function isTransactional(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === "") return true;
  if (trimmed.startsWith("/")) return true; // a slash command, not a question for memory
  const words = (trimmed.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
  if (words.length === 0) return true; // only punctuation or emoji
  if (words.every((word) => CHATTER.has(word))) return true; // "thanks a lot!", "ok?", "go ahead"
  if (/[?？¿]/.test(trimmed) || QUESTION_WORDS.has(words[0]!)) return false;
  // Chinese and Japanese write no spaces: each of their characters counts as a word.
  const ideographs = trimmed.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  return words.length + ideographs < 3;
}
