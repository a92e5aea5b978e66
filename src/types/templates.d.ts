// Templates are imported as text so `bun build --compile` embeds them in the binary.
declare module "*.eta" {
  const text: string;
  export default text;
}
