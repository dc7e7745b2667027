/**
 * A value's type as JSON.stringify sends it (dates become ISO strings). A server module that builds an API answer
 * checks it against the answer's zod schema with this, so the shared wire type cannot drift from what is sent.
 */
export type AsJson<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? AsJson<U>[]
    : T extends object
      ? { [K in keyof T]: AsJson<T[K]> }
      : T;
