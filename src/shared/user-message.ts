/**
 * A message the screens show a person (a toast or an inline error): a short title and a sentence saying what
 * happened or what to do. The shared rules of every feature answer in this shape (docs/product/features.md).
 */
export interface UserMessage {
  title: string;
  description: string;
}
