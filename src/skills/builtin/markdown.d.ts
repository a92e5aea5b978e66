// Built-in skills are imported as text so `bun build --compile` embeds them in the binary.
declare module "*.md" {
  const text: string;
  export default text;
}
